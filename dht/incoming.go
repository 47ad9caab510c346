package dht

import (
	"bytes"
	"context"
	"strings"

	dhtpb "github.com/libp2p/go-libp2p-kad-dht/pb"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// incomingRecord is an adpcard record a peer asked this node to store.
type incomingRecord struct {
	key   string
	value []byte
	from  peer.ID
}

// onRequest runs in kad-dht's message handler for every request, before
// kad-dht handles it, so it only charges puts to WithPutLimit and queues
// adpcard PUT_VALUE records (dropping them when the queue is full) for
// incomingLoop to verify and hand to OnCard.
func (d *DHT) onRequest(_ context.Context, s network.Stream, req *dhtpb.Message) {
	if !d.admitPut(s, req) {
		return
	}
	if req.GetType() != dhtpb.Message_PUT_VALUE || d.incoming == nil {
		return
	}
	rec := req.GetRecord()
	if rec == nil || !strings.HasPrefix(string(rec.GetKey()), "/"+Namespace+"/") || len(rec.GetValue()) > adp.MaxCardSize {
		return
	}
	r := incomingRecord{key: string(rec.GetKey()), value: bytes.Clone(rec.GetValue()), from: s.Conn().RemotePeer()}
	select {
	case d.incoming <- r:
	default:
		d.incomingDropped.Add(1)
	}
}

// incomingLoop verifies queued records and hands their cards to OnCard:
// a DHT server learns every card stored at it, as a directory wants.
func (d *DHT) incomingLoop() {
	defer d.wg.Done()
	for {
		select {
		case <-d.ctx.Done():
			return
		case r := <-d.incoming:
			c, err := d.memo.validate(r.key, r.value)
			if err != nil {
				d.incomingInvalid.Add(1)
				d.cfg.log.Debug("invalid card put", "peer", r.from, "err", err)
				continue
			}
			d.incomingCards.Add(1)
			d.cfg.onCard(c)
		}
	}
}

// admitPut charges a PUT_VALUE or ADD_PROVIDER request to WithPutLimit.
// A refused one is emptied in place (no record, no provider), so that
// kad-dht's handler stores nothing: a put without a record fails, which
// resets the stream, and an ADD_PROVIDER without providers adds none.
func (d *DHT) admitPut(s network.Stream, req *dhtpb.Message) bool {
	t := req.GetType()
	if d.cfg.putLimit == nil || (t != dhtpb.Message_PUT_VALUE && t != dhtpb.Message_ADD_PROVIDER) {
		return true
	}
	if ok, _ := d.cfg.putLimit.AllowPeer(s.Conn().RemotePeer(), s.Conn().RemoteMultiaddr()); ok {
		return true
	}
	d.putsRefused.Add(1)
	req.Record, req.ProviderPeers = nil, nil
	d.cfg.log.Debug("dht put refused by the rate limit", "peer", s.Conn().RemotePeer())
	return false
}
