#include "textflag.h"

// func prefetchw(p unsafe.Pointer, n uintptr)
TEXT ·prefetchw(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $-64, AX // from the line of p: every line [p, p+n) touches
loopw:
	CMPQ AX, CX
	JAE donew
	// PREFETCHW (AX)
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08
	ADDQ $64, AX
	JMP loopw
donew:
	RET

// func flushLines(p unsafe.Pointer, n uintptr)
TEXT ·flushLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $-64, AX
loopf:
	CMPQ AX, CX
	JAE donef
	// CLFLUSHOPT (AX)
	BYTE $0x66; BYTE $0x0F; BYTE $0xAE; BYTE $0x38
	ADDQ $64, AX
	JMP loopf
donef:
	RET
