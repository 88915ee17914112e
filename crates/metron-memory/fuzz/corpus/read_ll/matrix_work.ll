target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [17 x i8] c"usage: %s N M P\0A\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"%g\0A\00", align 1

define dso_local double @work(i32 noundef %n, i32 noundef %m, i32 noundef %p) #0 !dbg !155 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !159, metadata !DIExpression()), !dbg !166
  call void @llvm.dbg.value(metadata i32 %m, metadata !160, metadata !DIExpression()), !dbg !166
  call void @llvm.dbg.value(metadata i32 %p, metadata !161, metadata !DIExpression()), !dbg !166
  %mul = mul nsw i32 %n, %m, !dbg !167
  %add = add nsw i32 %mul, 1, !dbg !168
  %conv = sext i32 %add to i64, !dbg !169
  %mul1 = mul i64 8, %conv, !dbg !170
  %call = call noalias i8* @malloc(i64 noundef %mul1) #6, !dbg !171
  %0 = bitcast i8* %call to double*, !dbg !171
  call void @llvm.dbg.value(metadata double* %0, metadata !162, metadata !DIExpression()), !dbg !166
  %mul2 = mul nsw i32 %m, %p, !dbg !172
  %add3 = add nsw i32 %mul2, 1, !dbg !173
  %conv4 = sext i32 %add3 to i64, !dbg !174
  %mul5 = mul i64 8, %conv4, !dbg !175
  %call6 = call noalias i8* @malloc(i64 noundef %mul5) #6, !dbg !176
  %1 = bitcast i8* %call6 to double*, !dbg !176
  call void @llvm.dbg.value(metadata double* %1, metadata !163, metadata !DIExpression()), !dbg !166
  %mul7 = mul nsw i32 %n, %p, !dbg !177
  %add8 = add nsw i32 %mul7, 1, !dbg !178
  %conv9 = sext i32 %add8 to i64, !dbg !179
  %mul10 = mul i64 8, %conv9, !dbg !180
  %call11 = call noalias i8* @malloc(i64 noundef %mul10) #6, !dbg !181
  %2 = bitcast i8* %call11 to double*, !dbg !181
  call void @llvm.dbg.value(metadata double* %2, metadata !164, metadata !DIExpression()), !dbg !166
  %tobool = icmp ne double* %0, null, !dbg !182
  br i1 %tobool, label %lor.lhs.false, label %if.then, !dbg !184

lor.lhs.false:                                    ; preds = %entry
  %tobool12 = icmp ne double* %1, null, !dbg !185
  br i1 %tobool12, label %lor.lhs.false13, label %if.then, !dbg !186

lor.lhs.false13:                                  ; preds = %lor.lhs.false
  %tobool14 = icmp ne double* %2, null, !dbg !187
  br i1 %tobool14, label %if.end, label %if.then, !dbg !188

if.then:                                          ; preds = %lor.lhs.false13, %lor.lhs.false, %entry
  br label %cleanup, !dbg !189

if.end:                                           ; preds = %lor.lhs.false13
  call void @gen(i32 noundef %n, i32 noundef %m, i32 noundef %p, double* noundef %0, double* noundef %1), !dbg !190
  call void @mul(i32 noundef %n, i32 noundef %m, i32 noundef %p, double* noundef %0, double* noundef %1, double* noundef %2), !dbg !191
  %arrayidx = getelementptr inbounds double, double* %2, i64 0, !dbg !192
  %3 = load double, double* %arrayidx, align 8, !dbg !192, !tbaa !60
  call void @llvm.dbg.value(metadata double %3, metadata !165, metadata !DIExpression()), !dbg !166
  %4 = bitcast double* %0 to i8*, !dbg !193
  call void @free(i8* noundef %4) #6, !dbg !194
  %5 = bitcast double* %1 to i8*, !dbg !195
  call void @free(i8* noundef %5) #6, !dbg !196
  %6 = bitcast double* %2 to i8*, !dbg !197
  call void @free(i8* noundef %6) #6, !dbg !198
  br label %cleanup

cleanup:                                          ; preds = %if.end, %if.then
  %retval.0 = phi double [ %3, %if.end ], [ -1.000000e+00, %if.then ], !dbg !166
  ret double %retval.0, !dbg !199
}
