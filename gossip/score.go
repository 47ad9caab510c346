package gossip

import (
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// ScoreParams returns the default peer scoring parameters. Cards are rare
// (one per agent per change or rebroadcast), so the parameters reward
// first deliveries a little and never punish a quiet mesh (no mesh
// delivery deficit penalty). IP colocation is not penalized: testnets and
// many real deployments put several nodes behind one address.
//
// Only the topic validator's Rejects count against a peer, and hard: New
// adds to AppSpecificScore a penalty of -100 times the square of the
// number of rejected messages the peer relayed (decaying over an hour),
// so one costs 100 and five bring a peer to the graylist. GossipSub's own
// invalid-message counter (P4, the topic's InvalidMessageDeliveriesWeight)
// is off, because it also counts a message forwarded back to its
// publisher, which other implementations (js-libp2p-gossipsub) honestly
// do, and a message whose pubsub signature fails before the validator
// sees it (the peer gater throttles peers that send those).
func ScoreParams() *pubsub.PeerScoreParams {
	return &pubsub.PeerScoreParams{
		Topics:                    map[string]*pubsub.TopicScoreParams{Topic: TopicScoreParams()},
		TopicScoreCap:             50,
		AppSpecificScore:          func(peer.ID) float64 { return 0 },
		AppSpecificWeight:         1,
		BehaviourPenaltyWeight:    -10,
		BehaviourPenaltyThreshold: 6,
		BehaviourPenaltyDecay:     pubsub.ScoreParameterDecay(10 * time.Minute),
		DecayInterval:             pubsub.DefaultDecayInterval,
		DecayToZero:               pubsub.DefaultDecayToZero,
		RetainScore:               30 * time.Minute,
	}
}

// TopicScoreParams returns the scoring parameters of the cards topic.
func TopicScoreParams() *pubsub.TopicScoreParams {
	return &pubsub.TopicScoreParams{
		TopicWeight: 1,

		TimeInMeshWeight:  0.01,
		TimeInMeshQuantum: time.Second,
		TimeInMeshCap:     300,

		FirstMessageDeliveriesWeight: 1,
		FirstMessageDeliveriesDecay:  pubsub.ScoreParameterDecay(time.Hour),
		FirstMessageDeliveriesCap:    20,

		// Off: the validator's Rejects are counted by the application
		// score instead (see ScoreParams). The decay must still be valid.
		InvalidMessageDeliveriesWeight: 0,
		InvalidMessageDeliveriesDecay:  pubsub.ScoreParameterDecay(time.Hour),
	}
}

// ScoreThresholds returns the default score thresholds: a peer below -500
// gets no gossip, below -1000 none of our publications, below -2500 is
// ignored altogether.
func ScoreThresholds() *pubsub.PeerScoreThresholds {
	return &pubsub.PeerScoreThresholds{
		GossipThreshold:             -500,
		PublishThreshold:            -1000,
		GraylistThreshold:           -2500,
		AcceptPXThreshold:           10,
		OpportunisticGraftThreshold: 3,
	}
}
