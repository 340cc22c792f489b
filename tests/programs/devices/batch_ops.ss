# Every operation with a distributed lowering, and its gradient: the
# several-device tests run each function on one device and on cpu[0 1 2]
# and cpu[0 1] (a `devices` line put in front) and compare.

dim D = 4
dim C = 3

model M:
    param w: [D C] = normal(std=0.5)
    param v: [D] = normal(std=0.5)
    param c: [C] = normal(std=0.5)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss_ce(m: M, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w + m.c, batch.y, over=C)

fn loss_mean(m: M, batch: [b] Ex) -> []:
    return mean(tanh(batch.x * m.v)) + mean(batch.x @ m.w, over=[b C])

fn loss_sum(m: M, batch: [b] Ex) -> []:
    return sum(relu(batch.x @ m.w + m.c), over=[b C]) * 0.1

fn loss_einsum(m: M, batch: [b] Ex) -> []:
    h = batch.x @ m.w
    return sum(einsum(batch.x, h, b d, b c -> d c) * m.w)

fn loss_matmul(m: M, batch: [b] Ex) -> []:
    xt = rearrange(batch.x, b d -> d b)
    return sum((xt @ tanh(batch.x @ m.w)) * m.w) + sum(m.v @ matmul(xt, batch.x))

fn loss_reduce(m: M, batch: [b] Ex) -> []:
    h = sigmoid(batch.x @ m.w)
    return sum(reduce(h, b c -> c, sum) * m.c) + sum(mean(h, over=b) * m.c)

fn loss_twice(m: M, batch: [b] Ex) -> []:
    # w used on three paths: its gradients add up before one all-reduce
    a = batch.x @ m.w
    b2 = tanh(batch.x) @ m.w
    return cross_entropy(a + b2, batch.y, over=C) + mean(a * b2) + sum(m.w * m.w)

fn grad_ce(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_ce, m, batch)

fn grad_mean(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_mean, m, batch)

fn grad_sum(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_sum, m, batch)

fn grad_einsum(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_einsum, m, batch)

fn grad_matmul(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_matmul, m, batch)

fn grad_reduce(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_reduce, m, batch)

fn grad_twice(m: M, batch: [b] Ex) -> ([], M):
    return value_and_grad(loss_twice, m, batch)

fn logits(m: M, batch: [b] Ex) -> [b C]:
    return softmax(batch.x @ m.w + m.c, over=C)

fn step(mut m: M, mut opt: AdamW[M], batch: [b] Ex) -> []:
    l, g = value_and_grad(loss_twice, m, batch)
    update(mut m, mut opt, g)
    return l
