# A small classifier trained with Adam, straight through or saved half way
# and resumed from its checkpoints: both must end with the same weights.
dim D = 4
dim C = 3

data Point:
    x: [D]
    label: [] Index[C]

model Net:
    param w: [D C] = normal(std=0.5)
    param b: [C] = zeros

fn loss(m: Net, batch: [b] Point) -> []:
    return cross_entropy(batch.x @ m.w + m.b, batch.label, over=C)

fn step(mut m: Net, mut opt: Adam[Net], batch: [b] Point) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, clip_norm(g, 5.0))
    return l

fn epochs(mut m: Net, mut opt: Adam[Net], data: Dataset[Point], first: int, last: int):
    for epoch in range(first, last):
        for batch in data |> shuffle(seed=epoch) |> batches(3):
            l = step(mut m, mut opt, batch)

fn straight(total: int):
    data: Dataset[Point] = load("points.csv")
    m = Net(seed=7)
    opt = Adam(m, lr=0.05, weight_decay=0.01)
    epochs(mut m, mut opt, data, 0, total)
    print(m.w)

fn first_half(half: int):
    data: Dataset[Point] = load("points.csv")
    m = Net(seed=7)
    opt = Adam(m, lr=0.05, weight_decay=0.01)
    epochs(mut m, mut opt, data, 0, half)
    save(m, "m.safetensors")
    save(opt, "opt.safetensors")

fn second_half(half: int, total: int):
    data: Dataset[Point] = load("points.csv")
    m: Net = load("m.safetensors")
    opt: Adam[Net] = load("opt.safetensors")
    epochs(mut m, mut opt, data, half, total)
    print(m.w)
