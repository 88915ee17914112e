% passes: vectorize,repack
% assume: none
% force: false
% args: [-0.65 2.99 -2.28 -0.01 -1.38 -2.09 0.76 -1.03 2.57 -0.49 -2.93 0.50 0.93 2.42 -0.83 -2.98], [-2 -7 0 6 0 -5 0 -4; 9 4 -9 9 1 3 3 -3; 6 2 -8 0 -6 -4 3 3; -5 8 -1 -9 -1 7 -6 1; -9 -8 1 -8 -4 -9 1 -9; -5 -7 -6 6 -8 4 -8 -9; -4 8 3 -4 5 0 -5 -6; 9 0 6 4 -4 0 6 -5], 6
function [C1, g2, y3] = g3350(x, A, n)
  % metron: double x A n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  C1 = zeros(n + 2);
  for i = 1:n
    for j = 1:n
      C1(i, j) = A(i, j+1) - A(i+1, j) + j;
    end
  end
  g2 = N - 1 >= N || x(N-1:N-1) .* 2 + x(N-1+1:N-1+1) > 0;
  y3 = false(1, N);
  for i = 1:n-1
    y3(i+2) = i .* A(i, 3) * 3;
  end
end
