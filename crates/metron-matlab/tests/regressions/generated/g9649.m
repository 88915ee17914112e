% passes: range,vectorize
% assume: row
% force: false
% args: [1.79 -1.14 -2.94 1.45 -1.34 2.69 1.80 -2.21 2.61 0.83 -0.60 1.55 -0.21 2.10 2.99 -2.76], [-7 -2 3 -8 8 -7 -2 -9; 7 -6 7 -9 -9 -2 3 -5; 1 -9 0 0 6 8 -2 -1; 7 8 8 -1 8 1 0 0; -8 -9 -7 -7 8 -9 0 -4; -9 0 5 -5 9 2 -1 5; 3 -3 -8 1 5 -9 1 -9; 3 6 0 -8 3 -3 9 8], 6
function [w1, g2, r3, B4] = g9649(x, A, n)
  % metron: double x A n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  w1 = zeros(size(x));
  for i = 2:n
    if A(i, 1) >= 0 || x(i) < -1
      w1(2*i+1) = xl(i);
    else
      w1(2*i+1) = xl(2*i);
    end
  end
  g2 = N - 1 >= N || x(N-1:N-1) .* 2 + x(N-1+1:N-1+1) > 0;
  r3 = x(plus(times(1, colon(1, minus(n, 1))), 1));
  B4 = zeros(n + 2);
  for i = n:-1:1
    B4(2, i) = A(2, i) - A(i, 2) + xl(i);
  end
end
