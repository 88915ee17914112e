function [r, d] = bug5_integer_reorder(N)
  % issue 14, bug 5: uint8 + saturates, so it is not associative; only doubles are reordered
  A = uint8(200 * ones(1, N));
  B = uint8(200 * ones(1, N));
  C = uint8(100 * ones(1, 2 * N));
  r = -double(A) + B + C(1:N);
  D = rand(1, N); E = rand(1, N); F = rand(1, 2 * N);
  d = log(D) + E + F(1:N);
end
