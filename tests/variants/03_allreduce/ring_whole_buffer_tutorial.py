# cell: ring_allreduce_
# loses: test_ring_allreduce_
# PyTorch's "Writing distributed applications" ring: the whole buffer goes round N-1 times.
rank, size = dist.get_rank(), dist.get_world_size()
work = tensor.contiguous()
flat = work.view(-1)
send_buff, recv_buff, accum = flat.clone(), flat.clone(), flat.clone()
left, right = (rank - 1) % size, (rank + 1) % size
for i in range(size - 1):
    if i % 2 == 0:
        send_req = dist.isend(send_buff, right)
        dist.recv(recv_buff, left)
        accum[:] += recv_buff[:]
    else:
        send_req = dist.isend(recv_buff, right)
        dist.recv(send_buff, left)
        accum[:] += send_buff[:]
    send_req.wait()
tensor.copy_(accum.view_as(tensor))
return tensor
