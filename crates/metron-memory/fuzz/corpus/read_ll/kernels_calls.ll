target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@G = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !0
@H = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !15
@total = dso_local global double 0.000000e+00, align 8, !dbg !20
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [53 x i8] c"usage: %s matmul|stencil|triangular|calls|branchy N\0A\00", align 1
@.str.1 = private unnamed_addr constant [20 x i8] c"N must be in 0..%d\0A\00", align 1
@.str.2 = private unnamed_addr constant [7 x i8] c"matmul\00", align 1
@.str.3 = private unnamed_addr constant [8 x i8] c"stencil\00", align 1
@.str.4 = private unnamed_addr constant [11 x i8] c"triangular\00", align 1
@.str.5 = private unnamed_addr constant [6 x i8] c"calls\00", align 1
@.str.6 = private unnamed_addr constant [8 x i8] c"branchy\00", align 1
@.str.7 = private unnamed_addr constant [19 x i8] c"unknown kernel %s\0A\00", align 1
@.str.8 = private unnamed_addr constant [7 x i8] c"%g %g\0A\00", align 1

define dso_local void @calls(i32 noundef %n, double* noundef %x, double* noundef %y) #0 !dbg !205 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !209, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata double* %x, metadata !210, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata double* %y, metadata !211, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata i32 0, metadata !212, metadata !DIExpression()), !dbg !215
  %cmp1 = icmp slt i32 0, %n, !dbg !216
  br i1 %cmp1, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !218

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64, !dbg !216
  br label %for.body, !dbg !218

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !218

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !212, metadata !DIExpression()), !dbg !215
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !219
  %0 = trunc i64 %indvars.iv.next to i32, !dbg !220
  %call = call double @dot(double* noundef %x, double* noundef %y, i32 noundef %0), !dbg !220
  %arrayidx = getelementptr inbounds double, double* %y, i64 %indvars.iv, !dbg !221
  store double %call, double* %arrayidx, align 8, !dbg !222, !tbaa !63
  br label %for.inc, !dbg !221

for.inc:                                          ; preds = %for.body
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !212, metadata !DIExpression()), !dbg !215
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !216
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !218, !llvm.loop !223

for.end:                                          ; preds = %for.cond.cleanup
  ret void, !dbg !225
}
