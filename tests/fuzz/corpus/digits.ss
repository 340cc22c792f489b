# The digits classifier of the design (docs/language.md): an MLP on 8x8
# images of handwritten digits, trained with AdamW.
dim D = 64          # a named size, fixed
dim H = 128
dim C = 10

data Digit:         # one example: a record of tensors
    pixels: [D]
    label: [] Index[C]          # a scalar integer in 0..C-1

model Mlp:          # trainable parameters with initialisers
    param w1: [D H] = normal(std=0.1)
    param b1: [H] = zeros
    param w2: [H C] = normal(std=0.1)
    param b2: [C] = zeros

fn logits(m: Mlp, x: [b D]) -> [b C]:       # b: a generic axis, any size
    h = relu(x @ m.w1 + m.b1)
    return h @ m.w2 + m.b2

fn loss(m: Mlp, batch: [b] Digit) -> []:
    return cross_entropy(logits(m, batch.pixels), batch.label, over=C)

fn train_step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Digit) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn accuracy(m: Mlp, batch: [b] Digit) -> []:
    return mean(argmax(logits(m, batch.pixels), over=C) == batch.label, over=b)   # bool mean: f32

sink metrics

fn main():
    train: Dataset[Digit] = load("digits-train.safetensors")
    test: Dataset[Digit] = load("digits-test.safetensors")
    m = Mlp(seed=0)
    opt = AdamW(m, lr=1e-3, weight_decay=0.01)
    for epoch in range(30):
        for batch in train |> shuffle(seed=epoch) |> batches(64):
            l = train_step(mut m, mut opt, batch)
            write(metrics, epoch=epoch, loss=l)
        print("epoch", epoch, "loss", l, "accuracy", accuracy(m, test |> whole))
    save(m, "mlp.safetensors")
