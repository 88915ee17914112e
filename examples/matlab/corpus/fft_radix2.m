% entry: fft_radix2(4096)
function X = fft_radix2(n)
% Iterative radix-2 FFT: bit-reversal permutation, then butterflies stage by stage.
x = rand(1, n);
bits = round(log2(n));
rev = zeros(1, n);
for k = 0:n-1
  r = 0; v = k;
  for b = 1:bits
    r = 2 * r + mod(v, 2);
    v = floor(v / 2);
  end
  rev(k + 1) = r + 1;
end
X = complex(x(rev));
half = 1;
while half < n
  w = exp(-1i * pi * (0:half-1) / half);
  for start = 1:2*half:n
    for k = 0:half-1
      t = w(k + 1) * X(start + k + half);
      X(start + k + half) = X(start + k) - t;
      X(start + k) = X(start + k) + t;
    end
  end
  half = 2 * half;
end
end
