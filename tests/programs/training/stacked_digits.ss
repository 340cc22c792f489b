# The digits through a stack of residual layers (`blocks: [L] Residual`,
# one scan over the layers), trained two epochs: tests/runtime/scan_test.cpp
# runs it beside stacked_digits_flat.ss (the same layers written out one by
# one) and on cpu[0 1 2].
dim D = 64
dim H = 32
dim C = 10
dim L = 4

sink metrics

data Digit:
    pixels: [D]
    label: [] Index[C]

model Linear[I, O]:
    param w: [I O] = glorot
    param b: [O] = normal(std=0.05)

model Residual:
    up: Linear[H, H]

model Deep:
    inp: Linear[D, H]
    blocks: [L] Residual
    out: Linear[H, C]

fn linear(m: Linear[i, o], x: [n i]) -> [n o] = x @ m.w + m.b

fn logits(m: Deep, x: [b D]) -> [b C]:
    h = relu(linear(m.inp, x))
    for k in m.blocks:
        h = h + relu(linear(k.up, h))
    return linear(m.out, h)

fn loss(m: Deep, batch: [b] Digit) -> [] = cross_entropy(logits(m, batch.pixels), batch.label, over=C)

fn train_step(mut m: Deep, mut opt: AdamW[Deep], batch: [b] Digit) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn accuracy(m: Deep, batch: [b] Digit) -> []:
    return mean(argmax(logits(m, batch.pixels), over=C) == batch.label, over=b)

fn main():
    train: Dataset[Digit] = load("digits-train.safetensors")
    test: Dataset[Digit] = load("digits-test.safetensors")
    m = Deep(seed=0)
    opt = AdamW(m, lr=3e-3, weight_decay=0.01)
    for epoch in range(2):
        for batch in train |> shuffle(seed=epoch) |> batches(64):
            l = train_step(mut m, mut opt, batch)
            write(metrics, loss=l)
    print("accuracy", accuracy(m, test |> whole))
    save(m, "deep.safetensors")
