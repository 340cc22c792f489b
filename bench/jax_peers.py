#!/usr/bin/env python3
"""The compiled peer: the MLP 784-256-256-10 and the attention block of
bench_mlp and bench_attention as jax.jit functions on XLA:CPU, on THREADS
threads (the first argument, 1 by default): MLP forward at batch 1 and 64,
its training step (forward, cross-entropy, backward, AdamW) at batch 64 and
256, and the attention block's training call (forward, the output's sum of
squares, backward, Adam). Prints `jax name microseconds` lines, the best of
5 rounds, each call waited for (block_until_ready).

    pip install jax && python3 bench/jax_peers.py 1
"""
import os
import sys

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 1
# XLA:CPU has no thread-count option: the process is pinned to THREADS
# cores (XLA sizes its pools from them), and with one, Eigen's pool is off.
os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:THREADS]))
if THREADS == 1:
    os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import best_us  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("# no JAX (pip install jax)")
    sys.exit(0)

key = jax.random.PRNGKey(0)


def adamw(params, grads, state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.01):
    m, v, t = state
    t = t + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    params = jax.tree_util.tree_map(
        lambda p, m, v: p - lr * (m / c1 / (jnp.sqrt(v / c2) + eps) + wd * p), params, m, v)
    return params, (m, v, t)


def init_state(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return (zeros, zeros, jnp.zeros((), jnp.float32))


# The MLP.
keys = jax.random.split(key, 3)
sizes = [(784, 256), (256, 256), (256, 10)]
mlp = [(jax.random.normal(k, s) * 0.05, jnp.zeros(s[1])) for k, s in zip(keys, sizes)]


def forward(params, x):
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x


def loss(params, x, y):
    logits = forward(params, x)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))


@jax.jit
def train(params, state, x, y):
    grads = jax.grad(loss)(params, x, y)
    return adamw(params, grads, state, wd=0.01)


fwd = jax.jit(forward)
for b in (1, 64):
    x = jax.random.normal(key, (b, 784))
    print(f"jax forward_b{b} {best_us(lambda: fwd(mlp, x).block_until_ready()):.1f}")
for b in (64, 256):
    x = jax.random.normal(key, (b, 784))
    y = jax.random.randint(key, (b,), 0, 10)
    holder = [mlp, init_state(mlp)]

    def step():
        holder[0], holder[1] = train(holder[0], holder[1], x, y)
        holder[0][0][0].block_until_ready()

    print(f"jax train_b{b} {best_us(step):.1f}")

# The attention block: batch 8, seq 128, d_model 64, 4 heads, causal, no biases.
B, T, E, H = 8, 128, 64, 4
K = E // H
w = [jax.random.normal(k, (E, E)) * 0.125 for k in jax.random.split(key, 4)]
xa = jax.random.normal(key, (B, T, E))
mask = jnp.triu(jnp.ones((T, T), bool), 1)


def attend(w, x):
    q, k, v = ((x @ wi).reshape(B, T, H, K).transpose(0, 2, 1, 3) for wi in w[:3])
    scores = (q @ k.transpose(0, 1, 3, 2)) / K ** 0.5
    weights = jax.nn.softmax(jnp.where(mask, -jnp.inf, scores), axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, E) @ w[3]


@jax.jit
def attention_train(w, state, x):
    grads = jax.grad(lambda w: jnp.sum(attend(w, x) ** 2))(w)
    return adamw(w, grads, state, wd=0.0)


holder = [w, init_state(w)]


def attention_step():
    holder[0], holder[1] = attention_train(holder[0], holder[1], xa)
    holder[0][0].block_until_ready()


print(f"jax attention_step {best_us(attention_step):.1f}")
