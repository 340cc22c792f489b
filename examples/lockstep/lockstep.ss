# A lockstep game's policy: each agent steers toward its goal. Every peer
# runs the same frames from the same inputs, so every peer must compute the
# same bits (`--numerics portable`); the host fine-tunes the policy in
# place now and then, toward what an expert controller would have done.
dim D = 8   # goal - position (2), velocity (2), position (2), bias (2)
dim H = 32
dim A = 2   # acceleration, each in [-1, 1]

data Demo:
    obs: [D]
    action: [A]

model Policy:
    param w1: [D H] = glorot
    param b1: [H] = zeros
    param w2: [H H] = glorot
    param b2: [H] = zeros
    param w3: [H A] = glorot
    param b3: [A] = zeros

fn act(m: Policy, obs: [b D]) -> [b A]:
    h = tanh(obs @ m.w1 + m.b1)
    h2 = gelu(h @ m.w2 + m.b2)
    return tanh(h2 @ m.w3 + m.b3)

fn loss(m: Policy, batch: [b] Demo) -> []:
    d = act(m, batch.obs) - batch.action
    return mean(mean(d * d, over=A), over=b)

fn finetune(mut m: Policy, mut opt: AdamW[Policy], batch: [b] Demo) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l
