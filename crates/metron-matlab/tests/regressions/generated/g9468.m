% passes: vectorize,range
% assume: none
% force: true
% args: [-2.97 0.65 -2.05 1.67 2.61 0.26 -2.68 -2.39 2.11 0.22 1.58 1.17 -0.84 -1.98 -1.83 1.40 -0.11 -1.66], [-6 2 -5 3 -3 -4 -2 9 0; -6 -3 -2 -6 8 8 7 3 2; -7 -1 1 2 0 9 -5 -1 2; 4 -4 9 -8 -2 -9 -4 2 -6; 1 1 -8 1 -5 7 -5 4 5; 5 -1 -8 8 -6 -1 8 -8 -5; 1 1 -8 -2 8 -1 -6 -7 -8; 2 9 5 -6 8 2 -1 -3 -8; 5 9 -8 -3 -6 -4 0 4 -6], 7
function [y1, y2, B3] = g9468(x, A, n)
  % metron: double x A n
  N = numel(x);
  xi = int8(round(x * 40));
  xl = x > 0;
  y1 = zeros(1, N, 'int16');
  for i = 1:n-1
    y1(2*i) = A(2, i) + abs(A(i, 2));
  end
  y2 = false(1, N);
  for i = n:-1:1
    y2(i+2) = A(i, 3) + sqrt(abs(A(1, i)));
  end
  B3 = zeros(n + 2);
  for i = 1:n
    B3(i, 1) = A(i, 1) * 2 + sqrt(abs(i));
  end
end
