% entry: moving_average(100000)
function y = moving_average(n)
% Three-point moving average with the end points copied.
x = cumsum(randn(1, n));
y = x;
for i = 2:n-1
  y(i) = (x(i-1) + x(i) + x(i+1)) / 3;
end
end
