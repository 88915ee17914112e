function [w, v, u] = bug6_short_circuit(A, n)
  % issue 14, bug 6: slices right of && / || run only when the guard lets them
  w = n < numel(A) && A(n:n) .* 2 + A(n+1:n+1) > 0;
  v = n >= numel(A) || A(n:n) .* 2 + A(n+1:n+1) > 0;
  u = sum(A(1:2) .* 2 + A(2:3)) > 0 && n > 0;
end
