; kernel floor_divmod (LLVM IR, rendered by Loupe)
define internal i32 @loupe_floordiv_i32(i32 %a, i32 %b) alwaysinline nounwind {
  %z = icmp eq i32 %b, 0
  %m1 = icmp eq i32 %b, -1
  %bad = or i1 %z, %m1
  %d = select i1 %bad, i32 1, i32 %b
  %q = sdiv i32 %a, %d
  %m = srem i32 %a, %d
  %mnz = icmp ne i32 %m, 0
  %an = icmp slt i32 %a, 0
  %bn = icmp slt i32 %b, 0
  %sd = xor i1 %an, %bn
  %adj = and i1 %mnz, %sd
  %qm = sub i32 %q, 1
  %q2 = select i1 %adj, i32 %qm, i32 %q
  %n = sub i32 0, %a
  %q3 = select i1 %m1, i32 %n, i32 %q2
  %r = select i1 %z, i32 0, i32 %q3
  ret i32 %r
}

define internal i32 @loupe_floormod_i32(i32 %a, i32 %b) alwaysinline nounwind {
  %z = icmp eq i32 %b, 0
  %m1 = icmp eq i32 %b, -1
  %bad = or i1 %z, %m1
  %d = select i1 %bad, i32 1, i32 %b
  %m = srem i32 %a, %d
  %mnz = icmp ne i32 %m, 0
  %mn = icmp slt i32 %m, 0
  %bn = icmp slt i32 %b, 0
  %sd = xor i1 %mn, %bn
  %adj = and i1 %mnz, %sd
  %mb = add i32 %m, %b
  %m2 = select i1 %adj, i32 %mb, i32 %m
  %r = select i1 %bad, i32 0, i32 %m2
  ret i32 %r
}

define void @floor_divmod(ptr noalias %data0, ptr noalias %data1, ptr noalias readonly %data2, ptr noalias readonly %data3, ptr noalias %data4, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = getelementptr inbounds i32, ptr %data0, i64 %ridx0
  %v1 = getelementptr inbounds i32, ptr %data2, i64 %ridx0
  %v2 = load i32, ptr %v1, align 4
  %v3 = getelementptr inbounds i32, ptr %data3, i64 %ridx0
  %v4 = load i32, ptr %v3, align 4
  %v5 = call i32 @loupe_floordiv_i32(i32 %v2, i32 %v4)
  store i32 %v5, ptr %v0, align 4
  %v6 = getelementptr inbounds i32, ptr %data1, i64 %ridx0
  %v7 = call i32 @loupe_floormod_i32(i32 %v2, i32 %v4)
  store i32 %v7, ptr %v6, align 4
  %v8 = getelementptr inbounds i32, ptr %data4, i64 %ridx0
  %v9 = sdiv i64 %ridx0, 3
  %v10 = mul i64 %v9, 10
  %v11 = srem i64 %ridx0, 3
  %v12 = add i64 %v10, %v11
  %v13 = trunc i64 %v12 to i32
  store i32 %v13, ptr %v8, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
