# A 3x3 convolution (a Sobel filter, padding 1) built from movement ops only: the padded image is
# turned into its 3x3 windows by expand -> reshape -> pad -> reshape -> shrink (each window row starts
# one element further along), first along the width, then along the height. The image is realized
# first, so the conv kernel loads it from memory through those views: in Loupe's ShapeTracker panel
# that load (data1) has two views, the first masked where the padding reads 0.
img = Tensor.arange(36).reshape(6, 6).float().realize()  # a buffer in memory, so the conv loads it through the views
k = Tensor([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
xp = img.pad(((1, 1), (1, 1)))                      # (8, 8)

# windows along the width: a[h, kj, w] = xp[h, kj + w]
a = xp.reshape(8, 1, 8).expand(8, 3, 8).reshape(8, 24)
a = a.pad((None, (0, 3))).reshape(8, 3, 9).shrink((None, None, (0, 6)))

# windows along the height: b[kj, w, ki, h] = a[ki + h, kj, w]
b = a.permute(1, 2, 0).reshape(3, 6, 1, 8).expand(3, 6, 3, 8).reshape(3, 6, 24)
b = b.pad((None, None, (0, 3))).reshape(3, 6, 3, 9).shrink((None, None, None, (0, 6)))

windows = b.permute(2, 0, 3, 1)                     # (ki, kj, h, w)
out = (windows * k.reshape(3, 3, 1, 1)).sum(axis=(0, 1))
