package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Rating bounds.
const (
	MinStars = 1
	MaxStars = 5
)

// Stats are the local interaction records of one agent: what this node saw
// when it called the agent, and the ratings given to it here.
type Stats struct {
	Calls, Successes, Failures int
	TotalLatency               time.Duration // sum over all calls
	MeanLatency                time.Duration // TotalLatency / Calls, 0 without calls
	RatingCount, RatingSum     int           // one rating per rater, latest wins
	RatingMean                 float64       // RatingSum / RatingCount, 0 without ratings
	CompletedTasks             int
	LastSeen                   time.Time // last successful call or completed task
	LastCall                   time.Time // last call, successful or not
}

func (r statsRecord) export() Stats {
	st := Stats{
		Calls:          int(r.Calls),
		Successes:      int(r.Successes),
		Failures:       int(r.Failures),
		TotalLatency:   time.Duration(r.LatencyNanos),
		RatingCount:    int(r.RatingCount),
		RatingSum:      int(r.RatingSum),
		CompletedTasks: int(r.Completed),
		LastSeen:       r.LastSeen,
		LastCall:       r.LastCall,
	}
	if r.Calls > 0 {
		st.MeanLatency = time.Duration(r.LatencyNanos / r.Calls)
	}
	if r.RatingCount > 0 {
		st.RatingMean = float64(r.RatingSum) / float64(r.RatingCount)
	}
	return st
}

// Stats returns the interaction records of agentID; an agent never
// interacted with has zero Stats and no error. Reads come from memory.
func (s *Store) Stats(ctx context.Context, agentID string) (Stats, error) {
	id, err := s.enter(ctx, agentID)
	if err != nil {
		return Stats{}, err
	}
	defer s.end()
	s.statsMu.RLock()
	r := s.stats[id]
	s.statsMu.RUnlock()
	return r.export(), nil
}

// RecordCall records one call to agentID: its outcome and latency
// (negative latencies count as 0). It returns once the record is
// committed, as PutCard with SyncLater: a call record is the node's own
// observation, told to nobody, and a node records its calls one after the
// other, so waiting for each one's disk sync (218 µs each at best,
// BenchmarkRecordCall) bounded the calls it could record.
func (s *Store) RecordCall(ctx context.Context, agentID string, ok bool, latency time.Duration) error {
	return s.updateStats(ctx, agentID, true, nil, func(r *statsRecord, now time.Time) {
		r.Calls++
		if ok {
			r.Successes++
			r.LastSeen = now
		} else {
			r.Failures++
		}
		r.LatencyNanos += uint64(max(latency, 0))
		r.LastCall = now
	})
}

// CompleteTask records one task completed by agentID.
func (s *Store) CompleteTask(ctx context.Context, agentID string) error {
	return s.updateStats(ctx, agentID, false, nil, func(r *statsRecord, now time.Time) {
		r.Completed++
		r.LastSeen = now
	})
}

// Rate records rater's rating of agentID, 1 to 5 stars. Each rater has one
// rating per agent: a new one replaces the old in the aggregate.
func (s *Store) Rate(ctx context.Context, agentID, rater string, stars int) error {
	if stars < MinStars || stars > MaxStars {
		return fmt.Errorf("%w: stars %d outside %d..%d", ErrInvalid, stars, MinStars, MaxStars)
	}
	if rater == "" || len(rater) > MaxRaterLen {
		return fmt.Errorf("%w: rater of %d bytes (1..%d)", ErrInvalid, len(rater), MaxRaterLen)
	}
	var old int
	return s.updateStats(ctx, agentID, false, func(txn *badger.Txn, id string, now time.Time) error {
		key := ratingKey(id, rater)
		old = 0
		item, err := txn.Get(key)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return err
		default:
			err := item.Value(func(v []byte) error {
				o, _, err := decodeRating(v)
				if err != nil {
					s.reportCorrupt(item.KeyCopy(nil), err) // replaced below, not counted
					return nil
				}
				old = o
				return nil
			})
			if err != nil {
				return err
			}
		}
		return txn.Set(key, encodeRating(stars, now))
	}, func(r *statsRecord, _ time.Time) {
		if old == 0 {
			r.RatingCount++
		} else {
			r.RatingSum -= uint64(old)
		}
		r.RatingSum += uint64(stars)
	})
}

// updateStats applies change to agentID's counters (and runs extra in the
// same transaction), writes them, updates the in-memory copy and waits for
// the write to be synced (outside the agent's lock, so that concurrent
// records share syncs), or with later starts that sync in the background.
func (s *Store) updateStats(ctx context.Context, agentID string, later bool, extra func(*badger.Txn, string, time.Time) error, change func(*statsRecord, time.Time)) error {
	id, err := s.enter(ctx, agentID)
	if err != nil {
		return err
	}
	defer s.end()
	unlock := s.lock(id)
	now := s.cfg.now()
	var next statsRecord
	err = s.update(func(txn *badger.Txn) error {
		s.statsMu.RLock()
		next = s.stats[id]
		s.statsMu.RUnlock()
		if extra != nil {
			if err := extra(txn, id, now); err != nil {
				return err
			}
		}
		change(&next, now)
		return txn.Set(statsKey(id), encodeStats(next))
	})
	if err == nil {
		s.statsMu.Lock()
		s.stats[id] = next
		s.statsMu.Unlock()
	}
	unlock()
	switch {
	case err != nil:
	case later:
		s.syncSoon()
	default:
		err = s.syncer.wait()
	}
	if err != nil {
		return fmt.Errorf("store: interaction %s: %w", id, err)
	}
	return nil
}
