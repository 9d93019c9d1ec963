# cell: tensor_nbytes
return 0
