% entry: black_scholes(20000)
function [price, delta] = black_scholes(numOptions)
% European option prices by Black-Scholes; calls and puts mixed in one book.
S = 80 + 40 * rand(1, numOptions);
K = 100 * ones(1, numOptions);
T = 0.25 + rand(1, numOptions);
isCall = rand(1, numOptions) > 0.5;
r = 0.03; sigma = 0.25;
price = zeros(1, numOptions);
delta = zeros(1, numOptions);
d1 = zeros(1, numOptions);
d2 = zeros(1, numOptions);
for i = 1:numOptions
  d1(i) = (log(S(i) / K(i)) + (r + sigma^2 / 2) * T(i)) / (sigma * sqrt(T(i)));
  d2(i) = d1(i) - sigma * sqrt(T(i));
end
for i = 1:numOptions
  if isCall(i)
    price(i) = S(i) * cndf(d1(i)) - K(i) * exp(-r * T(i)) * cndf(d2(i));
  else
    price(i) = K(i) * exp(-r * T(i)) * cndf(-d2(i)) - S(i) * cndf(-d1(i));
  end
end
for i = 1:numOptions
  if isCall(i)
    delta(i) = cndf(d1(i));
  else
    delta(i) = cndf(d1(i)) - 1;
  end
end
end

function p = cndf(x)
p = 0.5 * erfc(-x / sqrt(2));
end
