function [y, z, w] = bug1_range_parens(n, k)
  % issue 14, bug 1: 2*(1:n)+n must stay 1-by-n (range simplification dropped parentheses)
  A = 1:30;
  y = 2*(1:n) + n;
  z = A(2*(1:3)+k);
  w = A(plus(times(2, colon(1, minus(n, 1))), 1)) + 2*(1:n-1) - 1;
end
