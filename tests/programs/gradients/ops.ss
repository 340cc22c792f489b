# One scalar function per differentiable operation, for the finite-difference
# gradient checks (tests/ir/autodiff_test.cpp). Every float parameter is
# differentiated; inputs are smooth away from kinks (see the test's inputs).
dim D = 5
dim C = 3
dim N = 4

fn unary_ops(x: [n D]) -> [] = sum(exp(x) * 0.1 + log(x * x + 1.0) + sqrt(x * x + 0.5) + tanh(x) + sigmoid(x) + gelu(x) - x)
fn kinks(x: [n D]) -> [] = sum(relu(x) * 2.0 + abs(x) + maximum(x, 0.3) + minimum(x, -0.2))
fn arithmetic(a: [n D], b: [D], c: [n 1]) -> [] = sum(a * b / (b * b + 1.0) + c - a ** 2 + (b * b + 1.0) ** c % 2.0)
fn selected(a: [n D], b: [n D]) -> [] = sum(where(a > b, a * 2.0, b * b))
fn matrix(x: [n D], w: [D C], v: [C]) -> [] = sum(tanh(x @ w) @ v)
fn sums(x: [n D]) -> [] = sum(sum(x, over=D, keep=true) * mean(x, over=n, keep=true) * 0.3) + mean(x * x)
fn extremes(x: [n D]) -> [] = sum(max(x, over=D)) - sum(min(x, over=n)) * 0.5
fn spreads(x: [n D]) -> [] = sum(logsumexp(x, over=D) + var(x, over=D)) + sum(std(x, over=n))
fn probabilities(x: [n D], w: [D]) -> [] = sum(softmax(x, over=D) * w) + sum(log_softmax(x, over=n) * w)
fn classify(x: [n C], labels: [n] Index[C]) -> [] = cross_entropy(x * 2.0, labels, over=C)
fn masked(x: [n n]) -> [] = sum(softmax(causal(x), over=-1) * x)
fn gathered(table: [N D], ids: [n] Index[N]) -> [] = sum(table[ids] * table[ids])
fn picked(x: [N D]) -> [] = sum(x[N=1] * 3.0 + x[N=-1]) + sum(x[N=1:3] * x[N=0:2])
fn padded(x: [N D]) -> [] = sum(pad(x, over=D, before=1, after=2, value=0.5) * pad(x * x, over=D, before=2, after=1))
fn joined(a: [N], b: [N]) -> [] = sum(concat(a * a, b, over=N) * f32(arange(8))) + sum(stack(a, b * b) * 0.5)
fn sorted(x: [n D], w: [D]) -> [] = sum(sort(x, over=D) * w)
fn normalised(x: [n D], w: [D]) -> [] = sum(layer_norm(x, over=D) * w) + sum(rms_norm(x, over=D) * w * w)
fn normalised_eps(x: [n D], w: [D]) -> [] = sum(layer_norm(x, over=D, eps=0.5) * w) + sum(rms_norm(x, over=D, eps=0.25) * w * w)
fn convolved(x: [n 6 5 4], k: [3 2 2 6], r: [n 3 5 6]) -> [] = sum(conv(x, k, over=[1 2], stride=[2 1], padding=1, dilation=[1 2], groups=2, out=[3 5]) * r)
# A ramp under x keeps a max's window free of near-ties a finite difference would cross.
fn pooled(x: [2 6 5 2], r: [2 3 3 2]) -> [] = sum(max_pool(x + rearrange(f32(arange(120)), (a h w c) -> a h w c, a=2, h=6, w=5), over=[1 2], window=3, stride=2, padding=1, out=[3 3]) * r)
fn averaged_pool(x: [n 6 5 2]) -> [] = sum(avg_pool(x * x, over=[1 2], window=2, padding=1, out=[4 3]) * 0.5)
fn contracted(x: [n D], w: [D C]) -> [] = sum(einsum(x, w, n d, d c -> n c) * einsum(x, n d -> d)[D=0])
fn patterned(x: [n D], y: [N]) -> [] = sum(rearrange(x, n d -> d n) * 0.5) + sum(repeat(y, m -> m k, k=3) ** 2) + sum(reduce(x * x, n d -> d, sum)) + sum(reduce(x, n d -> n, mean) ** 2)
fn pattern_extremes(x: [n D], y: [N D]) -> [] = sum(reduce(x * x, n d -> d, max)) - sum(reduce(x, n d -> n, min) ** 2) + sum(reduce(rearrange(y, m d -> d m), d m -> m, max) * 0.5)
fn averaged(x: [n D]) -> [] = sum(x * x) / n
model Layer:
    param w: [D D] = glorot
    param b: [D] = zeros

model Deep:
    blocks: [3] Layer

# Scans: a stack's layers (a free value read by every step), a tensor's
# slices with two carries, and one scan inside another.
fn scanned(m: Deep, x: [n D], c: [D]) -> []:
    h = x
    for k in m.blocks:
        h = h + tanh(h @ k.w + k.b) * c
    return sum(h * h)
fn stepped(x: [n N D], w: [D D]) -> []:
    h = x[N=0] * 0.0
    c = x[N=1]
    for xt in slices(x, over=N):
        c = c * 0.5 + xt
        h = tanh(h @ w + c)
    return sum(h * c)
fn nested(m: Deep, x: [n N D]) -> []:
    h = x[N=0]
    for xt in slices(x, over=N):
        for k in m.blocks:
            h = tanh(h @ k.w + xt) + k.b
    return sum(h * h)
# Attention: one fused node (ir/attention.hpp) and its gradient.
fn attended(q: [n 4 3], k: [n 4 3], v: [n 4 3]) -> [] = sum(einsum(softmax(causal(einsum(q, k, n i d, n j d -> n i j) * 0.5), over=-1), v, n i j, n j d -> n i d) * q)
