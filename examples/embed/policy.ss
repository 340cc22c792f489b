# A point robot's policy: from what it observes (its position and its
# goal's, four numbers) to a velocity (two), the MLP that
# examples/embed/train_policy.py trains in PyTorch. Its parameters keep
# nn.Linear's layouts ([out in]) so the state dict loads as it is; a name
# map turns nn.Sequential's "0." and "2." into fc1 and fc2.
dim O = 4
dim H = 32
dim A = 2

data Transition:
    obs: [O]
    action: [A]         # what the policy should have done

model Hidden:
    param weight: [H O] = glorot
    param bias: [H] = zeros

model Out:
    param weight: [A H] = glorot
    param bias: [A] = zeros

model Policy:
    fc1: Hidden
    fc2: Out

fn act(p: Policy, obs: [b O]) -> [b A]:
    h = tanh(einsum(obs, p.fc1.weight, b o, h o -> b h) + p.fc1.bias)
    return einsum(h, p.fc2.weight, b h, a h -> b a) + p.fc2.bias

fn loss(p: Policy, batch: [b] Transition) -> []:
    d = act(p, batch.obs) - batch.action
    return mean(mean(d * d, over=A), over=b)

fn train_step(mut p: Policy, mut opt: Adam[Policy], batch: [b] Transition) -> []:
    l, g = value_and_grad(loss, p, batch)
    update(mut p, mut opt, g)
    return l

# Fine-tuning on the host's replay buffer, in the controller.
fn fine_tune(mut p: Policy, mut opt: Adam[Policy], replay: Dataset[Transition], epochs: int) -> []:
    l = 0.0
    for epoch in range(epochs):
        for batch in replay |> shuffle(seed=epoch) |> batches(32):
            l = train_step(mut p, mut opt, batch)
    print("fine-tuned for", epochs, "epochs, last batch loss", l)
    return l
