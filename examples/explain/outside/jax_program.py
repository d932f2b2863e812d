"""JAX on a GPU: a jitted function that transposes a matrix and reduces it,
run as it is:

    gmlab explain -- python3 examples/explain/outside/jax_program.py

XLA launches the kernels it compiled; explain names the line that called the
jitted function where the launch is made from the Python thread.
"""
import jax
import jax.numpy as jnp


@jax.jit
def transposed_mean(a):
    return (a.T * 2.0).mean(axis=0)


a = jax.random.normal(jax.random.PRNGKey(0), (8192, 8192), dtype=jnp.float32)
for _ in range(10):
    out = transposed_mean(a)  # the line explain names
out.block_until_ready()
print("jax: %.4f" % float(out[0]))
