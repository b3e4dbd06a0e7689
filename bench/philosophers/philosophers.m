-- Asymmetric dining philosophers: the twin of philosophers.csp (see there).
-- One rule per event of the CSP# model; run.sh substitutes N.
const N: 12;
type pid: 0..N-1; loc: 0..3;
var pc: array[pid] of loc; fork: array[pid] of boolean;

function first(i: pid): pid; begin if i = N-1 then return 0; else return i; endif; end;
function second(i: pid): pid; begin if i = N-1 then return N-1; else return i+1; endif; end;

ruleset i: pid do
  rule "take first" pc[i] = 0 & !fork[first(i)] ==> begin fork[first(i)] := true; pc[i] := 1; end;
  rule "take second" pc[i] = 1 & !fork[second(i)] ==> begin fork[second(i)] := true; pc[i] := 2; end;
  rule "put first" pc[i] = 2 ==> begin fork[first(i)] := false; pc[i] := 3; end;
  rule "put second" pc[i] = 3 ==> begin fork[second(i)] := false; pc[i] := 0; end;
end;

startstate begin for i: pid do pc[i] := 0; fork[i] := false; end; end;
