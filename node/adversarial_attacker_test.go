package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
)

// attackReport is what the attacker process reports, as JSON on a line
// of its own after attackLine.
type attackReport struct {
	Minted, Refused              int64 // fresh identities made; their connections the directory refused
	Adv, AdvBusy, Disc, DiscBusy int64
	Other                        int64
	FirstOther                   string
}

const (
	attackEnv   = "ADPNODE_ADVERSARIAL_DIRECTORY" // the directory's address, for the attacker process
	attackLine  = "ADVERSARIAL-REPORT "
	attackPhase = "ADVERSARIAL-FRESH-IDENTITIES"
)

// runAttacker floods the directory from another process of this test
// binary, run at the lowest CPU priority (nice 19) where nice exists: the
// attacker's own work (minting keys and hosts, its side of every
// handshake) then does not eat the directory's CPU, as it would not in a
// real attack, and what is measured is the directory's own cost of
// refusing it. onFresh runs when the attacker starts its fresh
// identities.
func runAttacker(t *testing.T, dir peer.AddrInfo, d time.Duration, onFresh func()) attackReport {
	t.Helper()
	b, err := json.Marshal(dir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{os.Args[0], "-test.run=^TestAdversarialAttacker$", "-test.v",
		"-adversarial.duration=" + d.String(), "-adversarial.identities=" + strconv.Itoa(*adversarialIdentities)}
	if nice, err := exec.LookPath("nice"); err == nil {
		args = append([]string{nice, "-n", "19"}, args...)
	}
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Env = append(os.Environ(), attackEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var rep attackReport
	got := false
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == attackPhase:
			onFresh()
		case strings.HasPrefix(line, attackLine):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, attackLine)), &rep); err != nil {
				t.Fatalf("attacker report: %v", err)
			}
			got = true
		default:
			lines = append(lines, line)
		}
	}
	if err := cmd.Wait(); err != nil || !got {
		t.Fatalf("attacker process: %v (report %v); output:\n%s", err, got, strings.Join(lines, "\n"))
	}
	return rep
}

// TestAdversarialAttacker is the attacker process of TestAdversarial; run
// alone it does nothing. Phase 1: one identity from 127.0.200.1, four
// streams of adp.advertise and adp.discover, for a quarter of the
// duration. Phase 2: fresh identities from 127.0.201.1, each connecting,
// advertising its card and asking one discovery, for the rest.
func TestAdversarialAttacker(t *testing.T) {
	env := os.Getenv(attackEnv)
	if env == "" {
		t.Skip("the attacker process of TestAdversarial")
	}
	var dir peer.AddrInfo
	if err := json.Unmarshal([]byte(env), &dir); err != nil {
		t.Fatal(err)
	}
	d := *adversarialDuration
	var st attackStats
	acl, ask := advClientOpts(t, "127.0.200.1", dir, aitp.WithBreaker(1<<30, time.Millisecond))
	card := advCard(t, ask, "attacker", "translates between Chinese and English")
	ctx, cancel := context.WithTimeout(t.Context(), d/4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				st.call(ctx, acl, dir.ID, card)
			}
		})
	}
	wg.Wait()
	cancel()

	fmt.Println(attackPhase)
	ctx, cancel = context.WithTimeout(t.Context(), d-d/4)
	var minted atomic.Int64
	for range advWorkers {
		wg.Go(func() {
			for ctx.Err() == nil && minted.Add(1) <= int64(*adversarialIdentities) {
				st.sybil(ctx, t, dir)
			}
		})
	}
	wg.Wait()
	cancel()
	rep := st.report()
	rep.Minted = min(minted.Load(), int64(*adversarialIdentities))
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(attackLine + string(b))
}

// attackStats counts the attacker's calls by outcome.
type attackStats struct {
	adv, advBusy, disc, discBusy, other, refused atomic.Int64
	firstOther                                   atomic.Value // string
}

func (s *attackStats) report() attackReport {
	first, _ := s.firstOther.Load().(string)
	return attackReport{Refused: s.refused.Load(), Adv: s.adv.Load(), AdvBusy: s.advBusy.Load(),
		Disc: s.disc.Load(), DiscBusy: s.discBusy.Load(), Other: s.other.Load(), FirstOther: first}
}

func (s *attackStats) record(err error, calls, busy *atomic.Int64) {
	calls.Add(1)
	var e *aitp.Error
	switch {
	case err == nil:
	case errors.As(err, &e) && e.Status == aitp.StatusBusy:
		busy.Add(1)
	default:
		s.fail(err)
	}
}

func (s *attackStats) fail(err error) {
	if s.other.Add(1) == 1 {
		s.firstOther.Store(err.Error())
	}
}

// over reports whether ctx, a phase of the test, has ended: cancelled, or
// past its deadline though its timer has not yet fired. A call cut by
// the phase's deadline can end in the directory's TIMEOUT before the
// context's own timer runs (the deadline went with the request, and on a
// loaded machine the reply can beat that timer); it is the phase's end,
// not a failure.
func over(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// call sends one adp.advertise of card and one adp.discover.
func (s *attackStats) call(ctx context.Context, cl *aitp.Client, dir peer.ID, card *adp.Card) {
	_, err := service.Advertise(ctx, cl, dir, card)
	if over(ctx) {
		return
	}
	s.record(err, &s.adv, &s.advBusy)
	_, err = service.Discover(ctx, cl, dir, &adp.DiscoverRequest{Query: "translate picture"})
	if over(ctx) {
		return
	}
	s.record(err, &s.disc, &s.discBusy)
}

// sybil mints one identity on 127.0.201.1, advertises its card, asks one
// discovery and leaves. A dial that fails (the directory refuses
// connections past its per-network rate at accept) counts as refused.
func (s *attackStats) sybil(ctx context.Context, t *testing.T, dir peer.AddrInfo) {
	h, sk, err := advHost(ctx, "127.0.201.1", dir)
	switch {
	case err != nil && over(ctx):
		return
	case err != nil:
		s.refused.Add(1)
		return
	}
	defer h.Close()
	cl := aitp.NewClient(h, aitp.WithBreaker(1<<30, time.Millisecond))
	defer cl.Close()
	s.call(ctx, cl, dir.ID, advCard(t, sk, "sybil "+h.ID().String()[8:16], "translates between Chinese and English"))
}
