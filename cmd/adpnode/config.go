package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/node"
)

// maxConfigFileSize bounds a --config file.
const maxConfigFileSize = 1 << 20

// fileConfig is the JSON form of a --config file. Durations are Go
// duration strings ("5m").
type fileConfig struct {
	DataDir           *string  `json:"data_dir"`
	Listen            []string `json:"listen"`
	API               *string  `json:"api"`
	PublicHTTP        *string  `json:"public_http"`
	PublicURL         *string  `json:"public_url"`
	PublicA2A         *string  `json:"public_a2a"`
	PublicProxies     []string `json:"public_trusted_proxies"`
	Bootstrap         []string `json:"bootstrap"`
	Directory         *bool    `json:"directory"`
	AgentURL          *string  `json:"agent_url"`
	AgentMCPCommand   *string  `json:"agent_mcp_command"`
	AgentMCPURL       *string  `json:"agent_mcp_url"`
	DemoAgent         *bool    `json:"demo_agent"`
	GossipInterval    *string  `json:"gossip_interval"`
	RepublishInterval *string  `json:"republish_interval"`
	CardTTL           *string  `json:"card_ttl"`
	MaxCards          *int     `json:"max_cards"`
	ConnLow           *int     `json:"conn_low"`
	ConnHigh          *int     `json:"conn_high"`
	SmallMemory       *bool    `json:"small_memory"`
	Announce          []string `json:"announce"`
	NoAnnounce        []string `json:"no_announce"`
	Reachability      *string  `json:"reachability"`
	RelayService      *string  `json:"relay_service"`
	NoPortMap         *bool    `json:"no_port_map"`
	MDNS              *bool    `json:"mdns"`
	A2AAllowPrivate   *bool    `json:"a2a_allow_private"`
	DIDWbaDomain      *string  `json:"did_wba_domain"`
}

// applyConfigFile overlays the JSON config file at path on cfg. Unknown
// fields are an error, so a typo never passes silently.
func applyConfigFile(cfg *node.Config, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", node.ErrInvalidConfig, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFileSize+1))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", node.ErrInvalidConfig, path, err)
	}
	if len(data) > maxConfigFileSize {
		return fmt.Errorf("%w: %s: larger than %d bytes", node.ErrInvalidConfig, path, maxConfigFileSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var fc fileConfig
	if err := dec.Decode(&fc); err != nil {
		at, msg := jsonerr.Describe(err)
		return fmt.Errorf("%w: %s: at %q: %s", node.ErrInvalidConfig, path, at, msg)
	}
	if dec.More() {
		return fmt.Errorf("%w: %s: trailing data after the JSON object", node.ErrInvalidConfig, path)
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cfg.DataDir, fc.DataDir)
	set(&cfg.APIAddr, fc.API)
	set(&cfg.PublicHTTP, fc.PublicHTTP)
	set(&cfg.PublicURL, fc.PublicURL)
	set(&cfg.PublicA2A, fc.PublicA2A)
	set(&cfg.AgentURL, fc.AgentURL)
	set(&cfg.AgentMCPCommand, fc.AgentMCPCommand)
	set(&cfg.AgentMCPURL, fc.AgentMCPURL)
	set(&cfg.DIDWbaDomain, fc.DIDWbaDomain)
	if fc.Listen != nil {
		cfg.Listen = fc.Listen
	}
	if fc.PublicProxies != nil {
		cfg.PublicTrustedProxies = fc.PublicProxies
	}
	if fc.Bootstrap != nil {
		cfg.Bootstrap = fc.Bootstrap
	}
	if fc.Directory != nil {
		cfg.Directory = *fc.Directory
	}
	if fc.DemoAgent != nil {
		cfg.DemoAgent = *fc.DemoAgent
	}
	if fc.MaxCards != nil {
		cfg.MaxCards = *fc.MaxCards
	}
	if fc.MDNS != nil {
		cfg.MDNS = *fc.MDNS
	}
	if fc.A2AAllowPrivate != nil {
		cfg.A2AAllowPrivate = *fc.A2AAllowPrivate
	}
	if fc.SmallMemory != nil {
		cfg.SmallMemory = *fc.SmallMemory
	}
	if fc.ConnLow != nil {
		cfg.ConnLow = *fc.ConnLow
	}
	if fc.Announce != nil {
		cfg.Reach.Announce = fc.Announce
	}
	if fc.NoAnnounce != nil {
		cfg.Reach.NoAnnounce = fc.NoAnnounce
	}
	set(&cfg.Reach.Reachability, fc.Reachability)
	set(&cfg.Reach.RelayService, fc.RelayService)
	if fc.NoPortMap != nil {
		cfg.Reach.NoPortMap = *fc.NoPortMap
	}
	if fc.ConnHigh != nil {
		cfg.ConnHigh = *fc.ConnHigh
	}
	for _, d := range []struct {
		name string
		src  *string
		dst  *time.Duration
	}{
		{"gossip_interval", fc.GossipInterval, &cfg.GossipInterval},
		{"republish_interval", fc.RepublishInterval, &cfg.RepublishInterval},
		{"card_ttl", fc.CardTTL, &cfg.CardTTL},
	} {
		if d.src == nil {
			continue
		}
		v, err := time.ParseDuration(*d.src)
		if err != nil {
			return fmt.Errorf("%w: %s: %s: %v", node.ErrInvalidConfig, path, d.name, err)
		}
		*d.dst = v
	}
	return nil
}

// Environment variables read by applyEnv. List values are comma separated.
const (
	EnvDataDir         = "ADPNODE_DATA_DIR"
	EnvAPI             = "ADPNODE_API"
	EnvListen          = "ADPNODE_LISTEN"
	EnvBootstrap       = "ADPNODE_BOOTSTRAP"
	EnvDirectory       = "ADPNODE_DIRECTORY"
	EnvAgentURL        = "ADPNODE_AGENT_URL"
	EnvAgentMCPCmd     = "ADPNODE_AGENT_MCP_COMMAND"
	EnvAgentMCPURL     = "ADPNODE_AGENT_MCP_URL"
	EnvDemoAgent       = "ADPNODE_DEMO_AGENT"
	EnvGossipInterval  = "ADPNODE_GOSSIP_INTERVAL"
	EnvSmallMemory     = "ADPNODE_SMALL_MEMORY"
	EnvMDNS            = "ADPNODE_MDNS"
	EnvA2AAllowPrivate = "ADPNODE_A2A_ALLOW_PRIVATE"
	EnvConfig          = "ADPNODE_CONFIG"
)

// applyEnv overlays the ADPNODE_* variables found by lookup (os.LookupEnv
// in production) on cfg.
func applyEnv(cfg *node.Config, lookup func(string) (string, bool)) error {
	var errs []error
	if v, ok := lookup(EnvDataDir); ok {
		cfg.DataDir = v
	}
	if v, ok := lookup(EnvAPI); ok {
		cfg.APIAddr = v
	}
	if v, ok := lookup(EnvAgentURL); ok {
		cfg.AgentURL = v
	}
	if v, ok := lookup(EnvAgentMCPCmd); ok {
		cfg.AgentMCPCommand = v
	}
	if v, ok := lookup(EnvAgentMCPURL); ok {
		cfg.AgentMCPURL = v
	}
	if v, ok := lookup(EnvListen); ok {
		cfg.Listen = splitList(v)
	}
	if v, ok := lookup(EnvBootstrap); ok {
		cfg.Bootstrap = splitList(v)
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{EnvDirectory, &cfg.Directory}, {EnvDemoAgent, &cfg.DemoAgent}, {EnvSmallMemory, &cfg.SmallMemory}, {EnvMDNS, &cfg.MDNS}, {EnvA2AAllowPrivate, &cfg.A2AAllowPrivate}} {
		if v, ok := lookup(b.name); ok && v != "" {
			x, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w: %s=%q: not a boolean", node.ErrInvalidConfig, b.name, v))
				continue
			}
			*b.dst = x
		}
	}
	if v, ok := lookup(EnvGossipInterval); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s=%q: %v", node.ErrInvalidConfig, EnvGossipInterval, v, err))
		} else {
			cfg.GossipInterval = d
		}
	}
	return errors.Join(errs...)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
