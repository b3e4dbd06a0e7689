/* The SPIN twin of testdata/lts/bench/segqueue.csp: the same segmented
 * queue, one Promela statement (a d_step for a guarded
 * update) per CSP# event, one label per CSP# control
 * location (Thread, EnqRead, EnqTry, DeqRead, DeqTry, Done), so that both
 * tools explore the same states. Keep the constants equal to the model's
 * (lts/bench_test.go checks); FULL, EMPTY and the options of EnqTry and
 * DeqTry are written out for S = 3 and V = 2. The Done step reads got so
 * that SPIN's dead-variable reduction does not merge states the CSP# model
 * keeps apart (both then count the same states). */
#define T 3
#define S 3
#define M 2
#define V 2

byte q[M*S];
byte head = 0;
byte tail = 0;
byte used = 1;
byte seg[T];
byte got[T];

#define B (seg[_pid]*S)
#define FULL (q[B+0] != 0 && q[B+1] != 0 && q[B+2] != 0)
#define EMPTY (q[B+0] == 0 && q[B+1] == 0 && q[B+2] == 0)

active [T] proctype Thread() {
Th:	if
	:: seg[_pid] = tail; goto EnqTry
	:: seg[_pid] = head; goto DeqTry
	fi;
EnqRead:
	seg[_pid] = tail; goto EnqTry;
DeqRead:
	seg[_pid] = head; goto DeqTry;
EnqTry:
	if
	:: d_step { q[B+0] == 0 -> q[B+0] = 1 }; goto Th
	:: d_step { q[B+0] == 0 -> q[B+0] = 2 }; goto Th
	:: d_step { q[B+1] == 0 -> q[B+1] = 1 }; goto Th
	:: d_step { q[B+1] == 0 -> q[B+1] = 2 }; goto Th
	:: d_step { q[B+2] == 0 -> q[B+2] = 1 }; goto Th
	:: d_step { q[B+2] == 0 -> q[B+2] = 2 }; goto Th
	:: seg[_pid] != tail; goto EnqRead
	:: d_step { seg[_pid] == tail && FULL && used < M -> tail = (tail + 1) % M; used++ }; goto EnqRead
	fi;
DeqTry:
	if
	:: d_step { q[B+0] != 0 -> got[_pid] = q[B+0]; q[B+0] = 0 }; goto Done
	:: d_step { q[B+1] != 0 -> got[_pid] = q[B+1]; q[B+1] = 0 }; goto Done
	:: d_step { q[B+2] != 0 -> got[_pid] = q[B+2]; q[B+2] = 0 }; goto Done
	:: seg[_pid] != head; goto DeqRead
	:: d_step { seg[_pid] == head && EMPTY && used > 1 -> head = (head + 1) % M; used-- }; goto DeqRead
	:: seg[_pid] == head && EMPTY && used == 1; goto Th
	fi;
Done:
	if
	:: d_step { got[_pid] != 0 -> got[_pid] = 0 }; goto Th
	fi
}
