% entry: clip_saxpy(100000)
function y = clip_saxpy(n)
% y = a*x + y with the result clipped to [-1, 1] (branchy element-wise code).
x = randn(1, n);
y = randn(1, n);
a = 0.7;
for k = 1:n
  y(k) = a * x(k) + y(k);
end
for k = 1:n
  if y(k) > 1
    y(k) = 1;
  elseif y(k) < -1
    y(k) = -1;
  end
end
end
