'Delay in ns needed in delay env'
