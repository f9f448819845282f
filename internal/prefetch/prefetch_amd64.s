#include "textflag.h"

// func At(p unsafe.Pointer)
TEXT ·At(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
