import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './deleteComment';

const comments = [
  { id: 3, text: 'Great write-up, thanks!' },
  { id: 4, text: 'First!!!' },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('deletes a comment and removes it from the list', async () => {
  fetchMock.get('/api/posts/7/comments', comments);
  fetchMock.delete('/api/comments/4', 204);

  await act(async () => { render(<App />); });
  expect(screen.getByText('First!!!')).toBeInTheDocument();

  await act(async () => { fireEvent.click(screen.getByTestId('delete-comment-4')); });

  expect(fetchMock.called('/api/comments/4')).toBe(true);
  expect(screen.queryByText('First!!!')).not.toBeInTheDocument();
  expect(screen.getByText('Great write-up, thanks!')).toBeInTheDocument();
  expect(screen.getByText(/comment deleted/i)).toBeInTheDocument();
}, 10000);

test('keeps the comment and shows an error when deletion fails', async () => {
  fetchMock.get('/api/posts/7/comments', comments);
  fetchMock.delete('/api/comments/4', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('delete-comment-4')); });

  expect(fetchMock.called('/api/comments/4')).toBe(true);
  expect(screen.getByText('First!!!')).toBeInTheDocument();
  expect(screen.getByText(/failed to delete comment/i)).toBeInTheDocument();
}, 10000);
