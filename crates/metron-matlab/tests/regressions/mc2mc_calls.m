function [a, b] = mc2mc_calls(n)
  % issue 14: Mc2Mc writes operators as calls; range simplification and inlining read them
  A = (1:3*n) * 2;
  I = colon(2, minus(n, 1));
  a = A(I);
  b = A(plus(times(2, colon(1, minus(n, 1))), 1));
end
