; kernel float4_scale (LLVM IR, rendered by Loupe)
define void @float4_scale(ptr noalias %data0, ptr noalias readonly %data1, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = mul i64 %ridx0, 4
  %v1 = getelementptr inbounds float, ptr %data0, i64 %v0
  %v2 = getelementptr inbounds float, ptr %data1, i64 %v0
  %v3 = load <4 x float>, ptr %v2, align 4
  %v4 = fmul <4 x float> %v3, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %v5 = sitofp i64 %ridx0 to float
  %v6 = insertelement <4 x float> poison, float %v5, i32 0
  %v7 = insertelement <4 x float> %v6, float %v5, i32 1
  %v8 = insertelement <4 x float> %v7, float %v5, i32 2
  %v9 = insertelement <4 x float> %v8, float %v5, i32 3
  %v10 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %v3, <4 x float> <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>, <4 x float> %v9)
  store <4 x float> %v10, ptr %v1, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
declare <4 x float> @llvm.fmuladd.v4f32(<4 x float>, <4 x float>, <4 x float>)
