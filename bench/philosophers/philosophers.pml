/* Asymmetric dining philosophers: the twin of philosophers.csp (see there).
   Each d_step is one transition, as each event of the CSP# model is; a
   philosopher's constant fork numbers are initialised with the process and
   never change, so they add no states. spin -DN=12 -a philosophers.pml */
#ifndef N
#define N 12
#endif
bit fork[N];

active [N] proctype phil() {
	byte a = (_pid == N-1 -> 0 : _pid);          /* first fork */
	byte b = (_pid == N-1 -> N-1 : (_pid+1) % N); /* second fork */
	do
	:: d_step { fork[a] == 0 -> fork[a] = 1 };
	   d_step { fork[b] == 0 -> fork[b] = 1 };
	   fork[a] = 0;
	   fork[b] = 0
	od
}
