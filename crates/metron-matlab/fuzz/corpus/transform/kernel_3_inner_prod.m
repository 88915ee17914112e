function kernel_3_inner_prod(LEN_1D)
    %! pragma init
    q = 0.0;
    x = randn(1, LEN_1D);
    z = randn(1, LEN_1D);
    %! pragma loop
    for k = 1:LEN_1D
        q = q + z(k) .* x(k);
    end
    %! pragma unrolled_2
    for k = 1:2:(LEN_1D-1)
        q = q + z(k) .* x(k);
        q = q + z(k+1) .* x(k+1);
    end
    %! pragma vec
    q = sum(z(1:LEN_1D) .* x(1:LEN_1D));
end
