function X = repack_crni3(N)
% 000 Listing 5.3: the crni3 statement of LCPC16.
B = rand(1, N); C = rand(1, N); D = 1 + rand(1, N); X = rand(1, N);
X(1:(N-1)) = (B(1:(N-1)) - C(1:(N-1)) .* X(2:N)) ./ D(1:(N-1));
end
