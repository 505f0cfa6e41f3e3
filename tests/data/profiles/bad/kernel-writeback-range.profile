[kernel]
dirty_writeback_centisecs = 0
