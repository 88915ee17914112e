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

define dso_local void @branchy(i32 noundef %n, double* noundef %x) #0 !dbg !251 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !253, metadata !DIExpression()), !dbg !257
  call void @llvm.dbg.value(metadata double* %x, metadata !254, metadata !DIExpression()), !dbg !257
  call void @llvm.dbg.value(metadata i32 0, metadata !255, metadata !DIExpression()), !dbg !258
  %cmp2 = icmp slt i32 0, %n, !dbg !259
  br i1 %cmp2, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !261

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64, !dbg !259
  br label %for.body, !dbg !261

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !261

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !255, metadata !DIExpression()), !dbg !258
  %arrayidx = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !262
  %0 = load double, double* %arrayidx, align 8, !dbg !262, !tbaa !63
  %cmp1 = fcmp ogt double %0, 5.000000e-01, !dbg !265
  br i1 %cmp1, label %if.then, label %if.else, !dbg !266

if.then:                                          ; preds = %for.body
  %arrayidx3 = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !267
  %1 = load double, double* %arrayidx3, align 8, !dbg !267, !tbaa !63
  %arrayidx5 = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !268
  %2 = load double, double* %arrayidx5, align 8, !dbg !268, !tbaa !63
  %arrayidx7 = getelementptr inbounds [128 x double], [128 x double]* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 1), i64 0, i64 %indvars.iv, !dbg !269
  %3 = load double, double* %arrayidx7, align 8, !dbg !269, !tbaa !63
  %4 = call double @llvm.fmuladd.f64(double %1, double %2, double %3), !dbg !270
  %arrayidx9 = getelementptr inbounds [128 x double], [128 x double]* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 0), i64 0, i64 %indvars.iv, !dbg !271
  store double %4, double* %arrayidx9, align 8, !dbg !272, !tbaa !63
  br label %if.end, !dbg !271

if.else:                                          ; preds = %for.body
  %5 = load double, double* @total, align 8, !dbg !273, !tbaa !63
  %add = fadd double %5, 1.000000e+00, !dbg !273
  store double %add, double* @total, align 8, !dbg !273, !tbaa !63
  br label %if.end

if.end:                                           ; preds = %if.else, %if.then
  br label %for.inc, !dbg !274

for.inc:                                          ; preds = %if.end
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !275
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !255, metadata !DIExpression()), !dbg !258
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !259
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !261, !llvm.loop !276

for.end:                                          ; preds = %for.cond.cleanup
  ret void, !dbg !278
}
