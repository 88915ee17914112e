% entry: histogram(100000)
function h = histogram(n)
% Counts of samples per bin (an indirect reduction: the bin is data).
samples = rand(1, n);
nbins = 32;
bin = floor(samples * nbins) + 1;
h = zeros(1, nbins);
for k = 1:n
  h(bin(k)) = h(bin(k)) + 1;
end
end
