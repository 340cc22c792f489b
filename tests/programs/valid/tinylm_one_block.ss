# examples/tinylm as it was before stacks: token embedding, one causal
# self-attention block with layer_norm. tests/runtime/tinylm_graph_test.cpp
# runs its loss against numpy (tests/goldens/make_tinylm_goldens.py), and
# the executor tests run its graphs. Exercises einsum, causal, gathers and
# layer_norm end to end.
dim V = 64      # vocabulary
dim T = 32      # context
dim E = 32      # embedding
dim H = 4       # heads
dim K = 8       # per-head size, E = H * K

data Window:
    tokens: [T] Index[V]
    next: [T] Index[V]

model Attention:
    param wq: [E E] = glorot
    param wk: [E E] = glorot
    param wv: [E E] = glorot
    param wo: [H*K E] = glorot   # the heads, grouped back, then projected

model Lm:
    param embed: [V E] = normal(std=0.02)
    param position: [T E] = normal(std=0.02)
    attn: Attention
    param unembed: [E V] = normal(std=0.02)

fn heads(x: [b T E]) -> [b H T K] = rearrange(x, b t (h k) -> b h t k, h=H)

fn attend(a: Attention, x: [b T E]) -> [b T E]:
    q = heads(x @ a.wq)
    k = heads(x @ a.wk)
    v = heads(x @ a.wv)
    scores = einsum(q, k, b h i d, b h j d -> b h i j) / sqrt(f32(K))
    weights = softmax(causal(scores), over=-1)
    mixed = einsum(weights, v, b h i j, b h j d -> b h i d)
    return rearrange(mixed, b h t k -> b t (h k)) @ a.wo

fn forward(m: Lm, tokens: [b T] Index[V]) -> [b T V]:
    x = m.embed[tokens] + m.position
    x = layer_norm(x + attend(m.attn, x), over=E)
    return x @ m.unembed

fn loss(m: Lm, batch: [b] Window) -> [] = cross_entropy(forward(m, batch.tokens), batch.next, over=V)

fn step(mut m: Lm, mut opt: Adam[Lm], batch: [b] Window) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, clip_norm(g, 1.0))
    return l

fn main():
    windows: Dataset[Window] = load("../../../examples/tinylm/windows.safetensors")
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
