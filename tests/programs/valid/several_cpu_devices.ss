# The design's digits program on two CPU workers: device work in train_step,
# the batch axis split, only operations with a distributed lowering on it.
devices cpu[0 1]

dim D = 64
dim H = 128
dim C = 10

data Digit:
    pixels: [D]
    label: [] Index[C]

model Mlp:
    param w1: [D H] = normal(std=0.1)
    param b1: [H] = zeros
    param w2: [H C] = normal(std=0.1)
    param b2: [C] = zeros

fn logits(m: Mlp, x: [b D]) -> [b C]:
    h = relu(x @ m.w1 + m.b1)
    return h @ m.w2 + m.b2

fn loss(m: Mlp, batch: [b] Digit) -> [] = cross_entropy(logits(m, batch.pixels), batch.label, over=C)

fn train_step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Digit) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn accuracy(m: Mlp, batch: [b] Digit) -> [] = mean(argmax(logits(m, batch.pixels), over=C) == batch.label, over=b)

fn feature_sum(batch: [b] Digit) -> [D] = sum(batch.pixels, over=b)

fn gram(batch: [b] Digit) -> [D D] = einsum(batch.pixels, batch.pixels, b d, b e -> d e)

fn main():
    train: Dataset[Digit] = load("digits-train.safetensors")
    test: Dataset[Digit] = load("digits-test.safetensors")
    m = Mlp(seed=0)
    opt = AdamW(m, lr=1e-3)
    for epoch in range(30):
        for batch in train |> shuffle(seed=epoch) |> batches(64):
            l = train_step(mut m, mut opt, batch)
        print("epoch", epoch, "loss", l, "accuracy", accuracy(m, test |> whole))
    print(feature_sum(test |> whole), gram(test |> whole))
