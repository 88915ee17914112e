% passes: vectorize
% assume: none
% force: false
% args: [-2.61 2.01 2.03 -0.68 -2.84 2.72 0.19 -0.03 -1.05 0.35], [-9 3 7 -5 0; 2 -3 3 -6 -6; 9 -1 -6 -8 -5; -1 -4 2 7 -7; 6 8 -8 -4 3], 3
function [r1, y2, r3, g4] = g3578(x, A, n)
  % metron: scalar n
  % metron: double x A n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  r1 = x((1:2:n) + 1) .* 2;
  y2 = false(1, N);
  for i = 1:2:n
    y2(2*i) = i + A(i, 2) + 3;
  end
  r3 = x((1:2:n) + 1) .* 2;
  g4 = N - 1 < N && x(N-1:N-1) .* 2 + x(N-1+1:N-1+1) > 0;
end
