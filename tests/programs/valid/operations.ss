# One of everything the checker knows, each used as documented.
dim D = 6
dim C = 3
dim N = 4

data Point:
    x: [D]
    label: [] Index[C]
    mask: [D] bool

model Net:
    param w: [D C] = uniform(low=-0.1, high=0.1)
    param b: [C] = zeros
    param scale: [D] = ones

sink metrics
extern fn reward(s: [D]) -> []
extern fn log_any(t: tensor) -> []

fn elementwise(x: [n D], y: [D]) -> [n D]:
    a = exp(x) + log(abs(x) + 1.0) - sqrt(abs(y)) * tanh(x) / sigmoid(y)
    b = relu(x) ** 2 + gelu(x) % 3.0
    c = where(x > 0.0, a, b)
    return clip(maximum(c, minimum(a, b)), -1.0, 1.0)

fn reductions(x: [n D]) -> ([n], [n], [n], [n] Index[D], [n D], [n 1]):
    s = sum(x, over=D) / D
    v = var(x, over=-1) + std(x, over=D)
    return mean(x, over=D), max(x, over=D) - min(x, over=D), logsumexp(x, over=D), argmax(x, over=D), softmax(x, over=D) + log_softmax(x, over=D), sum(x, over=D, keep=true)

fn norms(x: [n D]) -> [n D] = layer_norm(x, over=D) + rms_norm(x, over=D)
fn norms_eps(x: [n D]) -> [n D] = layer_norm(x, over=D, eps=0.5) + rms_norm(x, over=D, eps=1e-3)
fn images(x: [n 6 5 2], k: [3 3 2 4]) -> ([n 6 5 4], [n 3 2 2], [n 3 2 2]):
    y = conv(x, k, over=[1 2], padding=1)
    return y, max_pool(x, over=[1 2], window=2, out=[3 2]), avg_pool(x, over=[1 2], window=2, out=[3 2])

fn sorting(x: [n D]) -> ([n D], [n D] Index[D]) = sort(x, over=D), argsort(x, over=D)

fn patterns(x: [n D]) -> [n 2 3]:
    y = rearrange(x, n (h w) -> n h w, h=2)
    z = reduce(rearrange(y, n h w -> n w h), n w h -> n h w, max)
    r = repeat(sum(x, over=D), n -> n c, c=C)
    return y + z * 0.5 + sum(r, over=-1, keep=true)[n=0]

fn joins(a: [N], b: [N]) -> ([8], [2 N]) = concat(a, b, over=N), stack(a, b)

fn indexing(x: [N D], ids: [n] Index[N]) -> ([D], [3 D], [n D]):
    return x[N=0], x[N=1:], x[ids]

fn literals() -> [2 3]:
    t = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return t * 2 + full([2 3], 0.5) + zeros([2 3]) + ones([2 3])

fn constructed() -> [D C] = normal([D C], std=0.1, seed=3) + uniform([D C], low=0.0, high=1.0, seed=4)

fn casts(x: [D], i: [D] i32) -> [D] Index[D] = Index[D](i32(x) + i)

fn loss(m: Net, batch: [b] Point) -> []:
    h = dropout(where(batch.mask, batch.x, 0.0) * m.scale, rate=0.1)
    return cross_entropy(h @ m.w + m.b, batch.label, over=C)

fn unrolled(x: [D]) -> [D]:
    y = x
    for i in range(N):
        y = y * 0.5
    return y

model Layer:
    param w: [D D] = glorot
    param b: [D] = zeros

model Deep:
    blocks: [N] Layer
    param out: [D C] = glorot

# A stack's scan (one body over the layers), a layer by its number, and a
# scan over a tensor's axis with two carries.
fn scanned(m: Deep, x: [n D]) -> [n C]:
    h = x
    for k in m.blocks:
        h = h + tanh(h @ k.w + k.b)
    return (h + m.blocks[-1].b) @ m.out

fn stepped(x: [n N D], w: [D D]) -> ([n D], [n D]):
    h = zeros([n D])
    c = x[N=0]
    for xt in slices(x, over=N):
        c = c * 0.5 + xt
        h = tanh(h @ w + c)
    return h, c

fn train_deep(mut m: Deep, mut opt: AdamW[Deep], x: [n D], y: [n] Index[C]) -> []:
    l, g = value_and_grad(deep_loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn deep_loss(m: Deep, x: [n D], y: [n] Index[C]) -> [] = cross_entropy(scanned(m, x), y, over=C)

fn train(mut m: Net, mut opt: SGD[Net], batch: [b] Point) -> []:
    l, g = value_and_grad(loss, m, batch)
    g2 = grad(loss, m, batch)
    update(mut m, mut opt, g * 0.5 + g2 * 0.5)
    return l + norm(g)

fn main():
    data: Dataset[Point] = load("points.csv")
    m = Net(seed=0)
    opt = SGD(m, lr=0.1, momentum=0.9, nesterov=true, weight_decay=0.0001)
    print("examples", len(data))
    for epoch in range(3):
        for batch in data |> shuffle(seed=epoch) |> batches(8):
            l = train(mut m, mut opt, batch)
            write(metrics, epoch=epoch, loss=l)
        if l < 0.1:
            break
        else:
            print(f"epoch {epoch} loss {l:.3f} shape {shape(m.w)}")
    r = reward(m.scale)
    log_any(m.w)
    save(m, "net.safetensors")
    save(opt, "opt.safetensors")
    m2: Net = load("net.safetensors")
