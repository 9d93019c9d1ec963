# cell: naive_allreduce
# scores: full
# d2l's allreduce (data[0][:] += data[i]; data[i][:] = data[0]) run on clones of the inputs, so the inputs stay
# untouched and each worker keeps its own new tensor of the inputs' dtype.
data = [b.clone() for b in buffers]
for i in range(1, len(data)):
    data[0][:] += data[i].to(data[0].device)
for i in range(1, len(data)):
    data[i][:] = data[0].to(data[i].device)
return data
