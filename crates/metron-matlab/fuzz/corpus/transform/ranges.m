function [b1, b2, b3, b4] = ranges(n)
% Indexing expressions of 000 §5.3 and Listings 7.1-7.2.
A = rand(1, 2*n);
N = numel(A) / 2;
b1 = A((0:(N-1)) + 1);     % all elements
b2 = A((1:2:(N-1)) + 1);   % even elements
b3 = A(2*(1:N)-1);         % odd elements
b4 = A(2*N + 1 - (1:N));   % reversed
end
