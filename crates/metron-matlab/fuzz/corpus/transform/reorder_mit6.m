function R = reorder_mit6(N)
% 000 §7.1.3: the slice of C is the right sibling of the inner +, which keeps the additions in
% separate instruction blocks on MATLAB; swapping B and C(1:N) merges them (Fig. 7.4).
A = 1 + rand(1, N); B = rand(1, N); C = rand(1, 2*N);
R = log(A) + B + C(1:N);
end
