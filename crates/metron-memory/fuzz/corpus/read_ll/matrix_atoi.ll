target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [17 x i8] c"usage: %s N M P\0A\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"%g\0A\00", align 1

define available_externally i32 @atoi(i8* noundef nonnull %__nptr) #5 !dbg !227 {
entry:
  call void @llvm.dbg.value(metadata i8* %__nptr, metadata !234, metadata !DIExpression()), !dbg !235
  %call = call i64 @strtol(i8* noundef %__nptr, i8** noundef null, i32 noundef 10) #6, !dbg !236
  %conv = trunc i64 %call to i32, !dbg !237
  ret i32 %conv, !dbg !238
}
