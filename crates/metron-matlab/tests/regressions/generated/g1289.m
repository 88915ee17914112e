% passes: vectorize
% assume: row
% force: true
% args: [-2.39 0.04 2.89 -1.73 2.03 2.72 -2.17 -2.22 -2.25 1.28 0.93 -0.47], [3 -2 6 -2 -3 0; 5 -6 6 -2 -6 -3; 6 -9 -1 -1 7 -7; 0 1 -4 1 2 -1; -1 -9 -8 3 -6 1; 8 -6 6 -3 4 -3], 4
function [w1, max, y2, z3, y4] = g1289(x, A, n)
  % metron: scalar n
  % metron: double x A n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  w1 = zeros(size(x));
  for i = 2:n
    if A(i, 1) >= 0 || x(i) < -1
      w1(2*i+1) = abs(x(i+2));
    end
  end
  max = 0;
  for k = n:-1:1
    max = max - abs(payoff(k, 2));
  end
  y2 = zeros(1, N);
  z3 = zeros(size(x));
  for i = 1:2:n
    y2(i+1) = i;
    z3(i) = y2(i+1) + A(i, 2);
  end
  y4 = zeros(1, N, 'int16');
  for i = n:-1:1
    y4(i) = payoff(ufun(2, 3), 0.5);
  end
end

function r = ufun(a, b)
  r = a .* 2 + b;
end

function p = payoff(s, k)
  p = max(s - k, 0) * exp(-0.05);
end
