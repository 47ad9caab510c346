package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/arrivals"
	"github.com/adpnode/adpnode/node/datadir"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/owncard"
	"github.com/adpnode/adpnode/store"
)

// InitOptions describe the card Init creates.
type InitOptions struct {
	Name, Description string
	Skills            []string
	Tools             []adp.Tool
	// DemoTools adds the demo agent's tools (demoagent.Tools).
	DemoTools bool
	// Card, when set, is the template: its fields are kept, and id, did,
	// seq, metadata timestamps and signature are set by Init. Name,
	// Description, Skills and Tools above override it when set.
	Card *adp.Card
}

// Init creates dataDir (if needed), a new Ed25519 identity (identity.key,
// mode 0600) and a signed card.json, and returns the agent id. It refuses
// a data directory that already has an identity.
func Init(dataDir string, opts InitOptions) (agentID string, err error) {
	if dataDir == "" {
		return "", fmt.Errorf("%w: data_dir: required", ErrInvalidConfig)
	}
	c := &adp.Card{}
	if opts.Card != nil {
		c = opts.Card.Clone()
	}
	if opts.Name != "" {
		c.Name = opts.Name
	}
	if opts.Description != "" {
		c.Description = opts.Description
	}
	if opts.Skills != nil {
		c.Skills = opts.Skills
	}
	if opts.Tools != nil {
		c.Tools = opts.Tools
	}
	if opts.DemoTools {
		c.Tools = append(c.Tools, demoagent.Tools()...)
	}
	if c.Name == "" {
		return "", fmt.Errorf("%w: name: required", ErrInvalidConfig)
	}
	sk, err := datadir.CreateIdentity(dataDir)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.Remove(filepath.Join(dataDir, datadir.IdentityFile))
		}
	}()
	if c, err = owncard.First(c, sk, time.Now()); err != nil {
		return "", err
	}
	if err := datadir.WriteCard(dataDir, c); err != nil {
		return "", err
	}
	return c.ID, nil
}

// newKeeper builds the keeper of the own card (package node/owncard): each
// version is written to card.json, stored, noted as published, served
// (the tools) and published in the background (gossip, DHT).
func (n *Node) newKeeper(card *adp.Card) (*owncard.Keeper, error) {
	return owncard.NewKeeper(owncard.Config{
		Card:  card,
		Key:   n.sk,
		Setup: n.setup,
		Write: func(c *adp.Card) error { return datadir.WriteCard(n.cfg.DataDir, c) },
		Keep:  n.keepOwn,
		Changed: func(c *adp.Card) {
			n.tools.Register(c)
			n.goLoop(func(ctx context.Context) { n.publish(ctx, c) })
		},
		Log: n.log,
	})
}

// keepOwn stores a version of the own card and notes it as published.
func (n *Node) keepOwn(ctx context.Context, c *adp.Card) error {
	if _, err := n.store.PutCard(ctx, c, store.SourceSelf, n.agentID); err != nil {
		return fmt.Errorf("node: store own card: %w", err)
	}
	n.arrivals.Note(n.agentID, seqOf(c), arrivals.SourceSelf)
	return nil
}

// UpdateCard applies fn to a copy of the own card, then bumps seq and
// metadata.updated_at, validates, signs, writes card.json and stores it,
// and publishes it in the background (gossip, DHT). fn must not change
// the id; seq and signature are set here, and what the node runs is kept
// on the card whatever fn does: the directory skill, the demo tools, the
// listen addresses.
func (n *Node) UpdateCard(ctx context.Context, fn func(*adp.Card)) error {
	_, err := n.own.Update(ctx, fn)
	return n.cardErr(err)
}

// SetCard replaces the own card's content with c (PUT /v1/card): every
// field comes from c except id, seq, signature and metadata timestamps.
func (n *Node) SetCard(ctx context.Context, c *adp.Card) (*adp.Card, error) {
	c, err := n.own.Replace(ctx, c)
	if err != nil {
		return nil, n.cardErr(err)
	}
	return c, nil
}

// cardErr names the field of an own-card edit that the keeper refused.
func (n *Node) cardErr(err error) error {
	if errors.Is(err, owncard.ErrOtherID) {
		return nodeapi.Argument(nodeapi.ErrConflict, "/id", "the card's id must be this node's agent id "+n.agentID)
	}
	return err
}
