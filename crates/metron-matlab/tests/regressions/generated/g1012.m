% passes: inline,range,vectorize
% assume: row
% force: true
% args: [-1.46 -2.84 0.50 -0.67 -1.12 0.78 -0.16 1.96 -2.35 -0.91 1.14 1.23 2.31 0.86 0.19 2.21 2.31 -2.36], [9 0 6 -9 -1 1 -3 -7 9; -5 5 -5 -6 7 -2 -7 -6 6; 6 -8 -4 9 0 9 0 9 -4; -1 6 -9 4 -6 5 9 2 1; 8 0 -2 -6 4 6 -7 9 -1; 6 9 2 -6 7 -5 -2 6 -5; 4 -5 -4 1 4 -2 -5 4 -6; -4 6 -7 9 4 5 3 7 -7; -1 -9 6 6 0 -4 -4 7 2], 7
function [max, w1] = g1012(x, A, n)
  % metron: scalar n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  max = 1.5;
  for k = 1:2:n
    max = max + A(2, k);
  end
  w1 = zeros(size(x));
  for i = 1:n-1
    if x(i) > x(i+1)
      w1(i+1) = payoff(xl(2*i+1), 2);
    else
      w1(i+1) = x(i);
    end
  end
end

function r = ufun(a, b)
  r = a .* 2 + b;
end

function p = payoff(s, k)
  p = max(s - k, 0) * exp(-0.05);
end
