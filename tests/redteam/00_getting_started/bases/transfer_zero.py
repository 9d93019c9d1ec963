# cell: transfer_time
return 0.0
