package dht_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	kaddht "github.com/libp2p/go-libp2p-kad-dht"
	record "github.com/libp2p/go-libp2p-record"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// permissive admits every record: the attacker's DHT sends what it likes.
type permissive struct{}

func (permissive) Validate(string, []byte) error        { return nil }
func (permissive) Select(string, [][]byte) (int, error) { return 0, nil }

// TestForgedPutNeverReachesSink has an attacker whose DHT skips validation
// put a forged card and another agent's card under the wrong key; the
// honest nodes neither store them nor hand them to OnCard. They share one
// check, as a process of nodes would: each record reaches every node
// twice (kad-dht's handler and the queue to OnCard) and may be put again,
// yet each signature is verified once.
func TestForgedPutNeverReachesSink(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	check := adp.NewChecker(16)
	c := newCluster(t, 4, p2pnet.Mocknet, dht.WithChecker(check))
	idx, err := c.net.Add(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ah, _ := c.net.Host(idx)
	attacker, err := kaddht.New(ah, kaddht.ProtocolPrefix(dht.ProtocolPrefix), kaddht.Mode(kaddht.ModeServer),
		kaddht.Validator(record.NamespacedValidator{dht.Namespace: permissive{}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { attacker.Close() })
	polltest.For(t, 10*time.Second, "attacker's routing table", func() bool { return attacker.RoutingTable().Size() > 0 })
	if err := <-attacker.RefreshRoutingTable(); err != nil {
		t.Fatal(err)
	}

	victim := newKey(t)
	vp, _ := peer.IDFromPrivateKey(victim)
	forged := cardtest.Tamper(t, cardtest.Signed(t, victim, 2, "victim").Raw(), "victim", "victin")
	other := cardtest.Signed(t, newKey(t), 1, "other").Raw()
	for _, v := range [][]byte{forged, other} {
		if err := attacker.PutValue(ctx, dht.Key(vp), v); err != nil {
			t.Fatalf("attacker put: %v", err)
		}
	}
	polltest.For(t, 10*time.Second, "honest nodes refused both records", func() bool {
		for _, d := range c.dhts {
			if d.Stats().IncomingInvalid < 2 { // a refused put may be sent again
				return false
			}
		}
		return true
	})
	for i, s := range c.sinks {
		if n := s.len(); n != 0 {
			t.Errorf("node %d's sink saw %d cards", i, n)
		}
	}
	if n := check.Verifications(); n != 2 {
		t.Errorf("%d signature checks, want 2: the forged card's and the other agent's, once each", n)
	}
	// Nothing was stored.
	if _, err := c.dhts[1].GetCard(ctx, adp.AgentID(vp)); !errors.Is(err, dht.ErrNotFound) {
		t.Fatalf("GetCard of the forged agent = %v, want ErrNotFound", err)
	}
}

// refuseFrom is a PutLimiter that refuses every put from one peer.
type refuseFrom struct {
	p       peer.ID
	refused atomic.Int64
}

func (r *refuseFrom) AllowPeer(p peer.ID, _ ma.Multiaddr) (bool, time.Duration) {
	if p == r.p {
		r.refused.Add(1)
		return false, time.Second
	}
	return true, 0
}

// TestPutLimitDropsRefusedPuts: the records and provider records a peer
// puts past WithPutLimit are dropped before kad-dht stores them and
// counted, while another peer's puts are still taken.
func TestPutLimitDropsRefusedPuts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lim := &refuseFrom{}
	c := newCluster(t, 3, p2pnet.Mocknet, dht.WithPutLimit(lim))
	lim.p = c.net.Hosts()[1].ID()

	refused := cardtest.Signed(t, newKey(t), 1, "refused", "vision/ocr")
	if err := c.dhts[1].PutCard(ctx, refused); err != nil {
		t.Logf("put from the limited peer: %v", err) // its peers' refusals may fail it
	}
	polltest.For(t, 10*time.Second, "the puts of the limited peer are refused", func() bool {
		return c.dhts[0].Stats().PutsRefused > 0 && c.dhts[2].Stats().PutsRefused > 0
	})
	taken := cardtest.Signed(t, newKey(t), 1, "taken", "vision/ocr")
	if err := c.dhts[2].PutCard(ctx, taken); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "the other peer's card reaches node 0", func() bool { return c.sinks[0].count(taken.Raw()) == 1 })
	for _, i := range []int{0, 2} {
		if n := c.sinks[i].count(refused.Raw()); n != 0 {
			t.Errorf("node %d took the refused card %d times", i, n)
		}
	}
	if lim.refused.Load() == 0 {
		t.Fatal("the limiter was never asked")
	}
}

// TestPutCardVerifiesOnce: PutCard checks the card through the validator
// kad-dht runs, with the node's shared check: a forged card is refused by
// it, and a good one is verified once, kad-dht's own check of the same
// bytes on the put being remembered. (PutCard's check used to verify on
// its own, beside the shared check.)
func TestPutCardVerifiesOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nw, err := p2pnet.New(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	check := adp.NewChecker(16)
	var ds []*dht.DHT
	defer func() {
		for _, d := range ds {
			d.Close()
		}
	}()
	for i := range 3 {
		h, _ := nw.Host(i)
		opts := []dht.Option{dht.Mode(dht.ModeServer), dht.NoAutoRefresh()}
		if i == 0 {
			opts = append(opts, dht.WithChecker(check))
		}
		d, err := dht.New(h, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if err := ds[0].Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	sk, _ := nw.Key(0)
	good := cardtest.Signed(t, sk, 1, "once")
	forged, err := adp.ParseCard(cardtest.Tamper(t, good.Raw(), "once", "onca"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ds[0].PutCard(ctx, forged); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("PutCard(forged) = %v, want ErrBadSignature", err)
	}
	if n := check.Verifications(); n != 1 {
		t.Fatalf("%d verifications by the shared check after a forged put, want 1", n)
	}
	if err := ds[0].PutCard(ctx, good); err != nil {
		t.Fatalf("PutCard: %v", err)
	}
	if n := check.Verifications(); n != 2 {
		t.Fatalf("%d verifications after a good put too, want 2: the card verified once", n)
	}
}
