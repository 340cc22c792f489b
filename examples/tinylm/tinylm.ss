# A small character-level language model: token embedding and learnt
# positions, a stack of two transformer blocks (causal self-attention with
# 4 heads, then a relu MLP, each with a residual and layer_norm, post-norm),
# written with a generic Linear[I, O] and `blocks: [L] Block`: one scan over
# the layers, its body compiled once. Trained with Adam on text.txt (cut
# into windows by make_data.py) for 300 steps; tinylm_twin.py is the same
# model in PyTorch. The uniform baseline is ln(64) = 4.16.
dim V = 64      # vocabulary
dim T = 32      # context
dim H = 4       # heads
dim K = 8       # per-head size
dim E = H * K   # embedding: the heads' axes grouped, as (h k) groups them
dim F = 4 * E   # the MLP's width
dim L = 2       # blocks

data Window:
    tokens: [T] Index[V]
    next: [T] Index[V]

model Linear[I, O]:
    param w: [I O] = glorot
    param b: [O] = zeros

model Block:
    q: Linear[E, E]
    k: Linear[E, E]
    v: Linear[E, E]
    o: Linear[E, E]
    up: Linear[E, F]
    down: Linear[F, E]

model Lm:
    param embed: [V E] = normal(std=0.02)
    param position: [T E] = normal(std=0.02)
    blocks: [L] Block
    param unembed: [E V] = normal(std=0.02)

fn linear(m: Linear[i, o], x: [b t i]) -> [b t o] = x @ m.w + m.b

fn heads(x: [b T E]) -> [b H T K] = rearrange(x, b t (h k) -> b h t k, h=H)

fn attend(a: Block, x: [b T E]) -> [b T E]:
    q = heads(linear(a.q, x))
    k = heads(linear(a.k, x))
    v = heads(linear(a.v, x))
    scores = einsum(q, k, b h i d, b h j d -> b h i j) / sqrt(f32(K))
    weights = softmax(causal(scores), over=-1)
    mixed = einsum(weights, v, b h i j, b h j d -> b h i d)
    return linear(a.o, rearrange(mixed, b h t k -> b t (h k)))

fn forward(m: Lm, tokens: [b T] Index[V]) -> [b T V]:
    x = m.embed[tokens] + m.position
    for block in m.blocks:
        x = layer_norm(x + attend(block, x), over=E)
        x = layer_norm(x + linear(block.down, relu(linear(block.up, x))), over=E)
    return x @ m.unembed

fn loss(m: Lm, batch: [b] Window) -> [] = cross_entropy(forward(m, batch.tokens), batch.next, over=V)

fn step(mut m: Lm, mut opt: Adam[Lm], batch: [b] Window) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, clip_norm(g, 1.0))
    return l

fn main():
    windows: Dataset[Window] = load("windows.safetensors")
    train, test = split(windows, frac=0.9, seed=0)
    m = Lm(seed=1)
    opt = Adam(m, lr=3e-3)
    for i in range(75):
        for batch in train |> shuffle(seed=i) |> batches(16) |> take(4):
            l = step(mut m, mut opt, batch)
        if i % 15 == 14:
            print(f"step {4 * (i + 1)}: loss {l:.4f}, test {loss(m, test |> whole):.4f}")
        if i == 50:
            opt.lr = 1e-3
    save(m, "tinylm.safetensors")
