# cell: ring_allreduce_sim
# loses: test_ring_sim_result
# Makes each worker's "copy" with .contiguous(), which returns the input itself when it is already contiguous:
# the ring then adds into and overwrites the caller's buffers.
# Breaks: "leave them untouched. Every worker works on its own copy".
n = len(buffers)
copies = [b.contiguous() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
trace = []
for s in range(n - 1):
    outgoing = [(r, (r - s) % n, chunks[r][(r - s) % n].clone()) for r in range(n)]
    for r, c, data in outgoing:
        dst = (r + 1) % n
        chunks[dst][c].add_(data)
        trace.append((s, r, dst, c))
for s in range(n - 1):
    outgoing = [(r, (r + 1 - s) % n, chunks[r][(r + 1 - s) % n].clone()) for r in range(n)]
    for r, c, data in outgoing:
        dst = (r + 1) % n
        chunks[dst][c].copy_(data)
        trace.append((n - 1 + s, r, dst, c))
return copies, trace
