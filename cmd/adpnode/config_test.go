package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node"
)

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "adpnode.json")
	body := `{"data_dir": "/from/file", "api": "127.0.0.1:7000", "directory": true, "gossip_interval": "30s", "listen": ["/ip4/127.0.0.1/tcp/4001"], "small_memory": true}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	if err := applyConfigFile(&cfg, file); err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/from/file" || cfg.APIAddr != "127.0.0.1:7000" || !cfg.Directory || cfg.GossipInterval != 30*time.Second || !cfg.SmallMemory {
		t.Fatalf("file not applied: %+v", cfg)
	}
	env := map[string]string{EnvAPI: "127.0.0.1:7001", EnvBootstrap: "/ip4/127.0.0.1/tcp/1/p2p/a, /ip4/127.0.0.1/tcp/2/p2p/b", EnvDirectory: "false"}
	if err := applyEnv(&cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/from/file" {
		t.Errorf("env without data dir changed it to %q", cfg.DataDir)
	}
	if cfg.APIAddr != "127.0.0.1:7001" || cfg.Directory || len(cfg.Bootstrap) != 2 || cfg.Bootstrap[1] != "/ip4/127.0.0.1/tcp/2/p2p/b" {
		t.Fatalf("env not applied over file: %+v", cfg)
	}
	env = map[string]string{EnvDirectory: "maybe"}
	if err := applyEnv(&cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok }); !errors.Is(err, node.ErrInvalidConfig) || !strings.Contains(err.Error(), EnvDirectory) {
		t.Fatalf("bad boolean: %v", err)
	}
}

func TestConfigFileRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown field": `{"data_dri": "x"}`,
		"bad duration":  `{"gossip_interval": "soon"}`,
		"trailing":      `{} {}`,
		"not json":      `data_dir = x`,
	} {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := node.DefaultConfig()
		if err := applyConfigFile(&cfg, file); !errors.Is(err, node.ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want node.ErrInvalidConfig", name, err)
		}
	}
	cfg := node.DefaultConfig()
	if err := applyConfigFile(&cfg, filepath.Join(dir, "missing")); !errors.Is(err, node.ErrInvalidConfig) {
		t.Errorf("missing file: %v", err)
	}
}

func TestAgentMCPFromFileAndEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"agent_mcp_command": "npx -y server", "agent_mcp_url": "http://127.0.0.1:3000/mcp"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var cfg node.Config
	if err := applyConfigFile(&cfg, path); err != nil || cfg.AgentMCPCommand != "npx -y server" || cfg.AgentMCPURL != "http://127.0.0.1:3000/mcp" {
		t.Fatalf("config file: %v %+v", err, cfg)
	}
	env := map[string]string{EnvAgentMCPCmd: "uvx server", EnvAgentMCPURL: ""}
	if err := applyEnv(&cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil || cfg.AgentMCPCommand != "uvx server" || cfg.AgentMCPURL != "" {
		t.Fatalf("env: %v %+v", err, cfg)
	}
}
