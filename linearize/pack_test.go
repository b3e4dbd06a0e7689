package linearize

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/quasar-verify/quasar/internal/intern"
)

// TestInternPacked: the wrapper's interning of state vectors, through
// the 64-bit keys of packVec where a vector packs and through the byte
// set where it does not, gives every vector the id a plain table of
// vectors gives it (ids in order of first sight), on random vectors of 0
// to 5 threads with small and large status ids. The hand mutant that
// loses the fourth thread's status fails it.
func TestInternPacked(t *testing.T) {
	run := func() (bad int) {
		rng := rand.New(rand.NewSource(7))
		w := &Wrapper{off: []uint32{0}, small: intern.NewMemo[uint32](16), index: intern.New(16)}
		ref := map[string]uint32{}
		for range 20000 {
			v := []uint32{uint32(rng.Intn(40))}
			for range rng.Intn(6) {
				st := uint32(rng.Intn(4))
				if rng.Intn(20) == 0 {
					st = 250 + uint32(rng.Intn(12))
				}
				v = append(v, st)
			}
			trim := v
			for len(trim) > 1 && trim[len(trim)-1] == 0 {
				trim = trim[:len(trim)-1]
			}
			k := fmt.Sprint(trim)
			want, ok := ref[k]
			if !ok {
				want = uint32(len(ref))
				ref[k] = want
			}
			got := w.intern(append([]uint32(nil), v...))
			if uint32(got) != want {
				bad++
				continue
			}
			if fmt.Sprint(w.vector(got)) != k {
				t.Fatalf("state %d is %v, want %s", got, w.vector(got), k)
			}
		}
		if len(w.setIDs) == 0 || w.small.Len() == 0 {
			t.Fatalf("one path never taken: %d vectors in the byte set, %d packed", len(w.setIDs), w.small.Len())
		}
		return bad
	}
	if bad := run(); bad != 0 {
		t.Fatalf("%d of 20000 vectors got another id than a plain table gives", bad)
	}
	packMutant = true
	defer func() { packMutant = false }()
	bad := run()
	t.Logf("mutant (the fourth thread lost): %d of 20000 vectors with a wrong id", bad)
	if bad == 0 {
		t.Fatal("the mutant is not caught")
	}
}
